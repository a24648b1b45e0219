package com.example.reminders;

import io.fencepost.lock.shedlock.FencepostLockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** A scheduled task that runs on one instance per tick, and records each run under its fencing token. */
@Component
public class InvoiceReminders {

    private final JdbcClient jdbc;

    public InvoiceReminders(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Scheduled(cron = "${reminders.cron:0 */5 * * * *}")
    @SchedulerLock(
            name = "invoice-reminders",
            lockAtMostFor = "10m",
            lockAtLeastFor = "${reminders.lock-at-least-for:1m}")
    public void sendReminders() {
        // New with Fencepost: the run's fencing token, larger than that of every earlier run.
        long token = FencepostLockProvider.currentLease().orElseThrow().fencingToken();
        jdbc.sql("INSERT INTO reminder_run (fence, ran_at) VALUES (:token, now())")
                .param("token", token)
                .update();
        // ... send the reminders
    }
}
