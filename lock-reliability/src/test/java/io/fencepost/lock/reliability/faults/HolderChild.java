package io.fencepost.lock.reliability.faults;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.SchemaMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the holder JVMs of the fault tests share: their arguments (jdbcUrl key leaseMillis), a manager of their own
 * that validates the schema the test made, the lease on the key, and the test's commands on standard input.
 */
final class HolderChild {

    /** What a holder does with its lease; {@code commands} are the lines the test sends. */
    @FunctionalInterface
    interface Holding {
        void run(Lease lease, String jdbcUrl, BufferedReader commands) throws Exception;
    }

    private HolderChild() {}

    /** Takes the lease the arguments name as {@code holderName} and runs {@code holding} with it. */
    static void hold(String[] args, String holderName, Holding holding) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (PostgresLockManager locks = PostgresLockManager.builder(dataSource)
                .schemaMode(SchemaMode.VALIDATE)
                .holderName(holderName)
                .build()) {
            Lease lease = locks.acquire(args[1], LockOptions.of(Duration.ofMillis(Long.parseLong(args[2]))));
            holding.run(lease, args[0], commands);
        }
    }
}
