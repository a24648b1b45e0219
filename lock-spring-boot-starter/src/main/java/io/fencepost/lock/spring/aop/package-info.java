/**
 * The {@link io.fencepost.lock.DistributedLock @DistributedLock} advisor: a Spring AOP pointcut and interceptor that
 * run annotated methods under a lease, with SpEL keys and durations parsed once at start-up.
 */
package io.fencepost.lock.spring.aop;
