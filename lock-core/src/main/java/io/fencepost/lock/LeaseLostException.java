package io.fencepost.lock;

/** The lease is no longer held: released, expired, taken over, or not confirmed by the store in time. */
public class LeaseLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    private final long fencingToken;

    public LeaseLostException(String key, long fencingToken, String reason) {
        super("lease on '" + key + "' (fencing token " + fencingToken + ") is no longer held: " + reason);
        this.key = key;
        this.fencingToken = fencingToken;
    }

    /** The key of the lost lease. */
    public String key() {
        return key;
    }

    /** The fencing token of the lost grant. */
    public long fencingToken() {
        return fencingToken;
    }
}
