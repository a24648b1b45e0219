package io.fencepost.lock.reliability.support;

import io.fencepost.lock.jdbc.test.TcpProxy;
import java.io.IOException;

/**
 * A loopback TCP proxy in front of PostgreSQL that a test can slow down (latency per chunk), stall in one or both
 * directions, cut, and point at another server. Stalling only the responses models the nastiest network failure
 * for a lock: the statement runs and commits, the client never hears of it.
 *
 * <p>The proxying itself, stalls, cuts and retargeting are {@link TcpProxy}'s; this adds latency and the one-way
 * stall.
 */
public final class FaultyProxy extends TcpProxy {

    private volatile long latencyMillis;

    /** A proxy to {@code targetPort} on loopback. */
    public FaultyProxy(int targetPort) throws IOException {
        this("127.0.0.1", targetPort);
    }

    /** A proxy, listening on loopback, to {@code targetHost:targetPort}. */
    public FaultyProxy(String targetHost, int targetPort) throws IOException {
        super("faulty-proxy", targetHost, targetPort);
    }

    /** Lets requests through but holds back every response: statements run, their results never arrive. */
    public void stallResponses() {
        holdBack(false, true);
    }

    /** Delays every chunk of bytes, in both directions, by {@code millis}. */
    public void latency(long millis) {
        this.latencyMillis = millis;
    }

    /** Ends stalls and latency; held bytes are delivered. */
    @Override
    public void resume() {
        latencyMillis = 0;
        super.resume();
    }

    @Override
    protected void awaitPassage(boolean request) throws InterruptedException {
        long delay = latencyMillis;
        if (delay > 0) {
            Thread.sleep(delay);
        }
        super.awaitPassage(request);
    }
}
