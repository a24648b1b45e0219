package io.fencepost.lock.spring.testing;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.OnLocked;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

/** A small application whose locked methods the tests call. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(Billing.Reports.class)
class Billing {

    @Service
    static class Reports {

        /** The fencing token it ran under, or null when another instance held the report. */
        @DistributedLock(key = "'nightly-report'", onLocked = OnLocked.SKIP)
        public Long run() {
            return LockContext.current().orElseThrow().fencingToken();
        }
    }
}
