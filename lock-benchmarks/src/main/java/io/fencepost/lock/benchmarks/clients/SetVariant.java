package io.fencepost.lock.benchmarks.clients;

import java.util.function.Function;

/** The ways of taking several keys at once that the sets scenario compares, with how each one's client is opened. */
public enum SetVariant {
    FENCEPOST_ALL("Fencepost `acquireAll`", Library.FENCEPOST, FencepostSetClient::together),
    FENCEPOST_ONE_BY_ONE("Fencepost, one `acquire` per key (sorted)", Library.FENCEPOST, FencepostSetClient::oneByOne),
    REDISSON_MULTI(
            "Redisson `RedissonMultiLock` (Redis, nothing persisted)", Library.REDISSON, RedissonMultiLockClient::new),
    REDISSON_MULTI_FSYNC(
            "Redisson `RedissonMultiLock`, Redis with appendfsync always",
            Library.REDISSON_FSYNC,
            c -> new RedissonMultiLockClient(c.onFsyncRedis()));

    private final String label;

    /** The library whose selection ({@code --libraries}) the variant follows. */
    private final Library library;

    private final Function<ClientContext, SetClient> open;

    SetVariant(String label, Library library, Function<ClientContext, SetClient> open) {
        this.label = label;
        this.library = library;
        this.open = open;
    }

    /** The name in the log. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    public String label() {
        return label;
    }

    public Library library() {
        return library;
    }

    public boolean onPostgres() {
        return !library.onRedis();
    }

    /** Whether {@code context} lets this variant run: the fsynced Redis only runs when the harness started it. */
    public boolean runsIn(ClientContext context) {
        return this != REDISSON_MULTI_FSYNC || context.fsyncRedisPort() != 0;
    }

    public SetClient open(ClientContext context) {
        return open.apply(context);
    }
}
