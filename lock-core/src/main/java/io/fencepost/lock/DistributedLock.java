package io.fencepost.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method (or every public method of the annotated type) while holding a lease on the key.
 *
 * <p>Interpreted by the Spring Boot starter; the key is a SpEL expression over the method arguments by name
 * ({@code "'invoice:' + #id"}), {@code #root.method}, {@code #root.target} and beans ({@code @name}).
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

    /**
     * SpEL expression for the key; literals are quoted: {@code "'nightly-report'"}. An expression that yields a
     * {@code Collection} or an array takes all its keys together, all or none ({@link LockManager#acquireAll}):
     * {@code "{'acct:' + #from, 'acct:' + #to}"}.
     */
    String key();

    /** Lease time such as {@code "30s"}, {@code "PT1M"} or {@code "500ms"}; empty = configured default. */
    String leaseTime() default "";

    /** Wait time for a busy key; empty = configured default. */
    String waitTime() default "";

    /** What to do when the key stays held. */
    OnLocked onLocked() default OnLocked.THROW;

    /** Whether the lease is renewed while the method runs. */
    boolean renew() default true;

    /** How long the key stays locked after acquisition even if the method returns sooner; empty = none. */
    String minHoldTime() default "";

    /** Bound on renewal; empty = configured default. */
    String maxHoldTime() default "";

    /** Low-cardinality name for metrics; empty = {@code ClassName.method}. */
    String name() default "";

    /**
     * Whether the thread running the method is interrupted when the lease is lost while the method runs. Blocking
     * calls that honour interrupts then end early with {@link InterruptedException} (or their equivalent); the
     * method should still call {@code LockContext.current().orElseThrow().checkHeld()} right before a side effect
     * and hand the fencing token to the resource, since an interrupt can arrive too late to stop a write in flight.
     */
    boolean interruptOnLoss() default false;

    /** Whether waiters are served in arrival order across all instances (see {@link LockOptions#fair()}). */
    boolean fair() default false;

    /**
     * Whether the lease is shared (a read lease): any number of methods hold the key's shared leases at once, never
     * together with an exclusive one (see {@link LockOptions#shared()}).
     */
    boolean shared() default false;

    /**
     * How many leases of the key may be held at once: a counted semaphore; 1 is an exclusive lock. Every caller of a
     * key must use the same number (see {@link LockOptions#permits()}).
     */
    int permits() default 1;

    /**
     * Whether a call from a thread that already holds the key through this manager re-enters that lease; with
     * {@code false} the key is busy for it like for anyone (see {@link LockOptions#reentrant()}).
     */
    boolean reentrant() default true;

    /**
     * Whether the method's transaction commits only while the lease is held: on a {@code @Transactional} method whose
     * transaction runs on the lock table's database, the starter checks the lease in that transaction just before it
     * commits, and keeps any new grant of the key from committing until the transaction has ended. A lease lost by then
     * rolls the transaction back and the caller gets {@link LeaseLostException}. Start-up fails when the method has no
     * transaction or its transaction runs on another database.
     */
    boolean fenceTransaction() default false;
}
