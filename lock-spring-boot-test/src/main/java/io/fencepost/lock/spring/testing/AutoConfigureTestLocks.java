package io.fencepost.lock.spring.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code @SpringBootTest}: the application's {@code LockManager} is replaced by the one of a
 * {@link io.fencepost.lock.testing.TestLocks} bean, which the test injects to make leases run out, take the store down,
 * force-release keys, see grants and act as a second instance. {@code @DistributedLock} methods lock through it.
 *
 * <p>Tests of classes with the same setting share one cached context; the test locks are reset after each test method
 * (store up, leases of the test removed, grants forgotten; in memory, a fresh store). Tests that share a context
 * share its locks, so they must not run in parallel with each other, as with any other state of a shared context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureTestLocks {

    /** Where the test's leases live; default {@link Store#IN_MEMORY}. */
    Store store() default Store.IN_MEMORY;

    /** Where the test's leases live. */
    enum Store {

        /** In memory: no database needed; the store's clock moves by hand ({@code TestLocks.advanceClock}). */
        IN_MEMORY,

        /**
         * In the application's PostgreSQL lock table (its {@code DataSource}, or the one qualified
         * {@code @LockDataSource}, and the {@code fencepost.jdbc.*} settings): what a fenced transaction
         * ({@code JdbcLeaseGuard}, {@code @DistributedLock(fenceTransaction = true)}) needs, since it checks the lease
         * in that table.
         */
        POSTGRES
    }
}
