package io.fencepost.lock.spring.actuate.endpoint;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.fencepost.lock.HeldLeaseInfo;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LeaseMode;
import io.fencepost.lock.LockAdmin;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.internal.LogSafe;
import java.security.Principal;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@code locks} endpoint: {@code GET /actuator/locks} lists the leases this instance holds,
 * {@code GET /actuator/locks/{key}} shows the store's view of one key (404 when it is free), and
 * {@code DELETE /actuator/locks/{key}} force-releases a key. The endpoint is read-only unless the application grants
 * more ({@code management.endpoint.locks.access=unrestricted}), and a forced release also needs what its
 * {@link ForceReleasePolicy} asks: {@code fencepost.endpoint.force-release.enabled}, an authenticated caller and its
 * role. Keys may contain {@code /}: the rest of the path is the key. Owner tokens never appear.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

    /** The property that allows {@link #forceRelease}. */
    public static final String FORCE_RELEASE_PROPERTY = "fencepost.endpoint.force-release.enabled";

    private static final Log logger = LogFactory.getLog(LocksEndpoint.class);

    private final LockManager lockManager;

    private final ForceReleasePolicy forceRelease;

    /**
     * An endpoint on {@code lockManager}; it lists held leases and force-releases only when the manager is a
     * {@link LockAdmin}, for authenticated callers with {@value ForceReleasePolicy#DEFAULT_ROLE}.
     */
    public LocksEndpoint(LockManager lockManager, boolean forceReleaseEnabled) {
        this(lockManager, ForceReleasePolicy.of(forceReleaseEnabled));
    }

    /** An endpoint on {@code lockManager} whose forced releases follow {@code forceRelease}. */
    public LocksEndpoint(LockManager lockManager, ForceReleasePolicy forceRelease) {
        this.lockManager = Objects.requireNonNull(lockManager, "lockManager");
        this.forceRelease = Objects.requireNonNull(forceRelease, "forceRelease");
    }

    /** The leases this instance holds, by key. */
    @ReadOperation
    public LocksDescriptor locks() {
        List<HeldLeaseInfo> leases = heldLeases().stream()
                .sorted(Comparator.comparing(HeldLeaseInfo::key))
                .toList();
        return new LocksDescriptor(holderName(lockManager), leases);
    }

    /** The store's view of {@code key} (the rest of the path), or null (404) when nobody holds it. */
    @ReadOperation
    public LeaseDescriptor lock(@Selector(match = Match.ALL_REMAINING) String... key) {
        String lockKey = key(key);
        LeaseInfo info;
        try {
            info = lockManager.inspect(lockKey).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "invalid lock key");
        }
        if (info == null) {
            return null;
        }
        // The store's holder name is this instance's: a grant the store has made to us is ours before this manager
        // has recorded it (or after it let go of it locally), which a look at the held leases alone would miss while
        // the key changes hands. Of several leases (shared, permits), the store shows the latest grant: any live one
        // of ours counts.
        String holderName = holderName(lockManager);
        boolean heldHere = info.holder().equals(holderName)
                || heldLeases().stream()
                        .anyMatch(held -> held.key().equals(info.key())
                                && (info.mode() != LeaseMode.EXCLUSIVE || held.fencingToken() == info.fencingToken()));
        return new LeaseDescriptor(info, heldHere);
    }

    /**
     * Removes the store's lease on {@code key} whoever holds it, when the {@link ForceReleasePolicy} allows the caller;
     * logged at INFO with who asked. The holder is not asked: its next renewal finds the lease gone and reports it lost, and
     * its fenced writes are refused once a later holder's have been accepted.
     *
     * @throws IllegalStateException when the caller may not force-release (the web extension answers 403 instead)
     */
    @DeleteOperation
    public ForceReleaseDescriptor forceRelease(
            SecurityContext securityContext, @Selector(match = Match.ALL_REMAINING) String... key) {
        String lockKey = key(key);
        String refusal = refusal(lockKey, securityContext);
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
        String who = who(securityContext);
        if (!(lockManager instanceof LockAdmin admin)) {
            throw new IllegalStateException("Cannot force-release lock '" + lockKey + "': the lock manager ("
                    + lockManager.getClass().getName() + ") does not implement LockAdmin");
        }
        boolean released;
        try {
            released = admin.forceRelease(lockKey);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "invalid lock key");
        }
        logger.info("Lock '" + loggable(lockKey) + "' was force-released through the locks endpoint by '"
                + loggable(who) + "' (" + (released ? "a live lease was removed" : "there was no live lease") + ")");
        return new ForceReleaseDescriptor(
                lockKey,
                released,
                who,
                released
                        ? "the lease was removed; its holder finds it lost at its next renewal, at once if it is this"
                                + " instance"
                        : "there was no live lease on this key");
    }

    /** Whether forced releases are enabled at all (the caller still needs what the policy asks). */
    public boolean isForceReleaseEnabled() {
        return forceRelease.enabled();
    }

    /** Who may force-release. */
    public ForceReleasePolicy forceReleasePolicy() {
        return forceRelease;
    }

    /**
     * Why {@code securityContext}'s caller may not force-release {@code key}, or null when it may. A refusal is
     * logged at DEBUG only: anyone who reaches the endpoint can cause them.
     */
    String refusal(String key, SecurityContext securityContext) {
        String reason = forceRelease.refusal(securityContext);
        if (reason != null && logger.isDebugEnabled()) {
            logger.debug("Refused to force-release lock '" + loggable(key) + "' for '" + loggable(who(securityContext))
                    + "': " + reason);
        }
        return reason;
    }

    static String who(SecurityContext securityContext) {
        Principal principal = securityContext != null ? securityContext.getPrincipal() : null;
        return principal != null && principal.getName() != null ? principal.getName() : "anonymous";
    }

    /** Text from a request, with control characters escaped so that it cannot forge log lines. */
    private static String loggable(String text) {
        return LogSafe.text(text);
    }

    private List<HeldLeaseInfo> heldLeases() {
        return lockManager instanceof LockAdmin admin ? admin.heldLeases() : List.of();
    }

    static String key(String[] segments) {
        String key = segments == null ? "" : String.join("/", segments);
        if (key.isBlank()) {
            throw new InvalidEndpointRequestException("a lock key is required", "missing lock key");
        }
        return key;
    }

    private static String holderName(LockManager lockManager) {
        return lockManager instanceof DefaultLockManager engine ? engine.holderName() : null;
    }

    /**
     * The leases this instance holds.
     *
     * @param holder the name this instance writes as the holder of its leases, when the manager tells it
     * @param leases sorted by key (several per key for shared leases and permits), with their mode and permits;
     *     never an owner token
     */
    public record LocksDescriptor(String holder, List<HeldLeaseInfo> leases) implements OperationResponseBody {}

    /**
     * The store's view of a key; its JSON shows the lease's fields ({@code key}, {@code fencingToken}, {@code holder},
     * {@code acquiredAt}, {@code expiresAt}, {@code mode}, {@code permits}, {@code leases}) at the top level, beside
     * {@code heldByThisInstance}.
     *
     * @param lease the store's view of the key's live leases, as {@link LockManager#inspect} gives it; never an owner
     *     token
     * @param heldByThisInstance whether this instance holds that very grant (for shared leases and permits: one of
     *     the key's live leases): the store names this instance's holder name as the holder, or the grant is one of
     *     this instance's leases; holder names tell instances apart only when they differ (the default,
     *     {@code application@host:pid}, does)
     */
    public record LeaseDescriptor(@JsonUnwrapped LeaseInfo lease, boolean heldByThisInstance)
            implements OperationResponseBody {}

    /**
     * The outcome of a forced release.
     *
     * @param key the key
     * @param released whether a live lease was removed
     * @param requestedBy who asked ({@code anonymous} without an authenticated principal)
     * @param message what happened, for people
     */
    public record ForceReleaseDescriptor(String key, boolean released, String requestedBy, String message)
            implements OperationResponseBody {}
}
