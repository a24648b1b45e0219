package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.clients.Library;
import java.time.Duration;

/**
 * Leadership hand-overs of one library, one way.
 *
 * @param how {@code yield}, {@code close} or {@code kill}
 * @param millis from the leader's call (or the kill) to the next candidate's grant, per hand-over that happened
 * @param leaseLeftMillis for kills: how much of the dead leader's lease was left when it was killed, by the database
 *     clock (NaN where it could not be read)
 * @param attempts hand-overs tried; those that did not happen within the time allowed are not in {@code millis}
 * @param leaseTime the leader's lease (Spring Integration: the registry's time to live)
 */
public record FailoverResult(
        Library library, String how, double[] millis, double[] leaseLeftMillis, int attempts, Duration leaseTime) {

    /** Hand-overs that did not happen in time (for a yield: the candidate that yielded was leader again). */
    public int missed() {
        return attempts - millis.length;
    }
}
