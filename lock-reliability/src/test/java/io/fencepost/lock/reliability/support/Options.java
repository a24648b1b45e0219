package io.fencepost.lock.reliability.support;

import io.fencepost.lock.LockOptions;
import java.time.Duration;

/** Lock options the reliability tests use again and again. */
public final class Options {

    private Options() {}

    /** A lease of {@code leaseTime}, waited for up to {@code waitTime}; everything else as by default. */
    public static LockOptions leaseAndWait(Duration leaseTime, Duration waitTime) {
        return LockOptions.builder().leaseTime(leaseTime).waitTime(waitTime).build();
    }
}
