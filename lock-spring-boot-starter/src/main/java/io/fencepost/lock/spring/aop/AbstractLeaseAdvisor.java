package io.fencepost.lock.spring.aop;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import java.lang.reflect.UndeclaredThrowableException;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * The base of the advisors that run a method inside a lease, {@link DistributedLockAdvisor} and
 * {@code LeaderOnlyAdvisor}: a fixed pointcut and advice, an order that defaults to the advisor's place around
 * {@code @Transactional} until {@link #setOrder} replaces it, and the call of the method inside the lease.
 */
public abstract class AbstractLeaseAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Pointcut pointcut;

    private final transient Advice advice;

    /** Held here rather than set on the superclass from the constructor, which a subclass could intercept. */
    private int order;

    /** An advisor of {@code advice} on {@code pointcut}, whose order is {@code defaultOrder} until it is set. */
    protected AbstractLeaseAdvisor(Pointcut pointcut, Advice advice, int defaultOrder) {
        this.pointcut = pointcut;
        this.advice = advice;
        this.order = defaultOrder;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    @Override
    public void setOrder(int order) {
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    /**
     * Proceeds with {@code invocation} with {@code lease} as the current lease ({@link LockContext}). What the method
     * throws passes through unchanged, but for a checked {@code Throwable} that is not an {@code Exception}, which is
     * wrapped in an {@link UndeclaredThrowableException}.
     */
    protected static Object proceedInside(Lease lease, MethodInvocation invocation) throws Exception {
        return LockContext.callWith(lease, held -> {
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new UndeclaredThrowableException(t);
            }
        });
    }
}
