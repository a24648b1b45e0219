package io.fencepost.lock;

/** A protected resource refused a write because a later grant's fencing token was already accepted. */
public class FencingTokenRejectedException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String resource;

    private final long token;

    private final long highestAccepted;

    public FencingTokenRejectedException(String resource, long token, long highestAccepted) {
        super("resource '" + resource + "' rejected fencing token " + token + ": token " + highestAccepted
                + " was already accepted, so this holder's lease was superseded");
        this.resource = resource;
        this.token = token;
        this.highestAccepted = highestAccepted;
    }

    /** The resource that refused the write. */
    public String resource() {
        return resource;
    }

    /** The stale token that was presented. */
    public long token() {
        return token;
    }

    /** The highest token the resource had accepted. */
    public long highestAccepted() {
        return highestAccepted;
    }
}
