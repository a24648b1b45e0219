package io.fencepost.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's own settings ({@code sample.*} in {@code application.yml}). The settlement job's schedule lives
 * there too, read by placeholders in its annotations.
 *
 * @param instanceName the name of this instance, shown on the page, recorded with settlement runs and used as
 *     Fencepost's holder name
 * @param transfers how transfers lock their accounts
 * @param lab the lab's timings
 */
@ConfigurationProperties("sample")
public record SampleProperties(
        @DefaultValue("sample-1") String instanceName,
        @DefaultValue Transfers transfers,
        @DefaultValue Lab lab) {

    /**
     * @param leaseTime the lease on each account while a transfer books it
     * @param waitTime how long a transfer waits for a busy account before it answers 503
     * @param fenceColumn whether a balance write carries the account's fencing token, refused when lower than the
     *     highest the account has accepted; either this or {@code fenceTransaction} protects a transfer whose lease
     *     ran out, the tests check each one alone
     * @param fenceTransaction whether a transfer's transaction commits only while both its leases are held
     *     ({@code JdbcLeaseGuard}; needs the leases in the ledger's PostgreSQL)
     */
    public record Transfers(
            @DefaultValue("10s") Duration leaseTime,
            @DefaultValue("5s") Duration waitTime,
            @DefaultValue("true") boolean fenceColumn,
            @DefaultValue("true") boolean fenceTransaction) {}

    /**
     * @param workers how many workers contend for the lab's key
     * @param leaseTime the workers' lease time (renewed while they run)
     * @param workTime how long a worker works between reading and writing the resource
     * @param pauseTime how long "pause the holder" freezes it: longer than the lease, like a long GC pause
     * @param outageTime how long "kill the store" keeps the lock store unreachable
     * @param idleTimeout the lab stops its workers when no page has asked for its state for this long
     */
    public record Lab(
            @DefaultValue("3") int workers,
            @DefaultValue("2s") Duration leaseTime,
            @DefaultValue("400ms") Duration workTime,
            @DefaultValue("4s") Duration pauseTime,
            @DefaultValue("6s") Duration outageTime,
            @DefaultValue("2m") Duration idleTimeout) {}
}
