package io.fencepost.lock.spring.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance is the leader of the group: on every other instance a call
 * returns at once without running it. Made for {@code @Scheduled} methods that every instance schedules and one
 * should run. Inside the method, {@code LockContext.current()} is the leadership lease: pass its fencing token (the
 * term) to what the method writes, so that a deposed leader's late writes are refused.
 *
 * <p>The group must be configured under {@code fencepost.leader.groups}; the method must return {@code void}.
 * Both are checked when the application starts.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** The group, as configured under {@code fencepost.leader.groups}. */
    String value();
}
