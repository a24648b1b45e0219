package io.fencepost.lock.spi;

import io.fencepost.lock.LeaseMode;
import java.util.List;
import java.util.Objects;

/**
 * One attempt to take several keys at once, as the engine asks a {@link MultiKeyAcquire} store: one exclusive request
 * per key, each with its own owner token, in the order the caller gave the keys.
 *
 * @param requests one exclusive request per key: at least one, at most {@value StoreLimits#MAX_KEYS_PER_SET}, no key
 *     twice
 */
public record MultiAcquireRequest(List<AcquireRequest> requests) {

    public MultiAcquireRequest {
        Objects.requireNonNull(requests, "requests");
        requests = List.copyOf(requests);
        StoreLimits.requireValidKeySet(
                requests.stream().map(AcquireRequest::key).toList());
        for (AcquireRequest request : requests) {
            if (request.mode() != LeaseMode.EXCLUSIVE) {
                throw new IllegalArgumentException("a set of keys takes exclusive leases only, but key '"
                        + request.key() + "' asks for " + request.mode());
            }
        }
    }

    /** The keys, in the order of the requests. */
    public List<String> keys() {
        return requests.stream().map(AcquireRequest::key).toList();
    }

    @Override
    public String toString() {
        return "MultiAcquireRequest" + requests; // each request leaves its owner token out
    }
}
