package io.fencepost.lock.spring.actuate.endpoint;

import io.fencepost.lock.spring.actuate.endpoint.LocksEndpoint.ForceReleaseDescriptor;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP side of the {@link LocksEndpoint}'s forced release: a caller its {@link ForceReleasePolicy} refuses gets
 * {@code 403 Forbidden} with a body that says why, rather than a bare server error.
 */
@EndpointWebExtension(endpoint = LocksEndpoint.class)
public class LocksEndpointWebExtension {

    private final LocksEndpoint delegate;

    /** The web extension of {@code delegate}. */
    public LocksEndpointWebExtension(LocksEndpoint delegate) {
        this.delegate = delegate;
    }

    /** {@code DELETE /actuator/locks/{key}}: as {@link LocksEndpoint#forceRelease}, or 403 for a refused caller. */
    @DeleteOperation
    public WebEndpointResponse<ForceReleaseDescriptor> forceRelease(
            SecurityContext securityContext, @Selector(match = Match.ALL_REMAINING) String... key) {
        String lockKey = LocksEndpoint.key(key);
        String reason = delegate.refusal(lockKey, securityContext);
        if (reason != null) {
            return new WebEndpointResponse<>(
                    new ForceReleaseDescriptor(lockKey, false, LocksEndpoint.who(securityContext), reason), 403);
        }
        return new WebEndpointResponse<>(delegate.forceRelease(securityContext, key), WebEndpointResponse.STATUS_OK);
    }
}
