package io.fencepost.lock.benchmarks.clients;

import java.time.Duration;

/** A library whose holder can move the end of its own lease by hand, owner-checked (the extend scenario). */
public interface ExtendableClient {

    /** Takes the free {@code key} and keeps it for {@link Extendable#extend} calls. */
    Extendable hold(String key) throws Exception;

    /** A held lease that its holder extends. */
    interface Extendable {

        /** Makes the lease end {@code leaseTime} from now, as the library does it; false when it was not ours. */
        boolean extend(Duration leaseTime) throws Exception;

        void release() throws Exception;
    }
}
