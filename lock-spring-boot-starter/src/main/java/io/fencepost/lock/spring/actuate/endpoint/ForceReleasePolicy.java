package io.fencepost.lock.spring.actuate.endpoint;

import java.security.Principal;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/**
 * Who may force-release a key through the {@code locks} endpoint. A forced release breaks mutual exclusion for a
 * holder that is still running, so it takes three things: forced releases enabled, a caller with a principal (unless
 * anonymous callers are explicitly allowed, for a set-up whose network is the only guard), and, when a role is named,
 * that role.
 *
 * @param enabled whether forced releases are allowed at all ({@value LocksEndpoint#FORCE_RELEASE_PROPERTY})
 * @param role the role the caller must have ({@code SecurityContext.isUserInRole}); blank for any authenticated caller
 * @param allowAnonymous whether a caller without a principal may force-release
 */
public record ForceReleasePolicy(boolean enabled, String role, boolean allowAnonymous) {

    /** The default role a caller needs. */
    public static final String DEFAULT_ROLE = "LOCK_ADMIN";

    /** Forced releases enabled or not, by authenticated callers with {@value #DEFAULT_ROLE}. */
    public static ForceReleasePolicy of(boolean enabled) {
        return new ForceReleasePolicy(enabled, DEFAULT_ROLE, false);
    }

    /** Why {@code caller} may not force-release, or null when it may. */
    String refusal(SecurityContext caller) {
        if (!enabled) {
            return "Force release is disabled. A forced release breaks the lock's mutual exclusion for a holder that"
                    + " is still running (only fencing protects the resource then); to allow it, set "
                    + LocksEndpoint.FORCE_RELEASE_PROPERTY + "=true.";
        }
        Principal principal = caller != null ? caller.getPrincipal() : null;
        if (principal == null) {
            return allowAnonymous
                    ? null
                    : "Force release needs an authenticated caller: put authentication in front of Actuator (for"
                            + " example Spring Security), or, where the network alone guards it, set"
                            + " fencepost.endpoint.force-release.allow-anonymous=true.";
        }
        if (role != null && !role.isBlank() && !caller.isUserInRole(role)) {
            return "Force release needs the role " + role + " (fencepost.endpoint.force-release.role).";
        }
        return null;
    }
}
