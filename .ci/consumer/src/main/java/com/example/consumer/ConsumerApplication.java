package com.example.consumer;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockContext;
import io.fencepost.lock.LockManager;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Service;

/** Takes a lock through the starter twice and prints the fencing tokens; exits non-zero if they do not grow. */
@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        try (ConfigurableApplicationContext context = SpringApplication.run(ConsumerApplication.class, args)) {
            Reports reports = context.getBean(Reports.class);
            long first = reports.run();
            long second = reports.run();
            System.out.println("consumer: " + context.getBean(LockManager.class).getClass().getSimpleName()
                    + " granted fencing tokens " + first + " and " + second);
            if (second <= first) {
                throw new IllegalStateException("fencing tokens did not grow: " + first + ", " + second);
            }
        }
    }

    @Service
    public static class Reports {

        @DistributedLock(key = "'nightly-report'")
        public long run() {
            return LockContext.current().orElseThrow().fencingToken();
        }
    }
}
