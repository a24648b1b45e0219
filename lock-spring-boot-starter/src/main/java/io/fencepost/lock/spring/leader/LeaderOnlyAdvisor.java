package io.fencepost.lock.spring.leader;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockContext;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The advisor behind {@link LeaderOnly @LeaderOnly}: a call runs the method inside the group's leadership lease when
 * this instance leads the group, and returns at once otherwise. A method whose group is not configured, or that does
 * not return {@code void}, fails the start-up when its bean is proxied.
 */
public class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Supplier<LeaderElections> elections;

    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
            if (leaderOnly == null) {
                return false;
            }
            check(method, leaderOnly.value());
            return true;
        }
    };

    private final transient MethodInterceptor interceptor = this::invoke;

    /**
     * Outside {@code @DistributedLock} and transactions. Held here rather than set on the superclass from the
     * constructor, which a subclass could intercept.
     */
    private int order = Ordered.LOWEST_PRECEDENCE - 200;

    /** An advisor that asks the elections {@code elections} supplies, lazily. */
    public LeaderOnlyAdvisor(Supplier<LeaderElections> elections) {
        this.elections = elections;
    }

    @Override
    public void setOrder(int order) {
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    private void check(Method method, String group) {
        String where = "@LeaderOnly on " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
        if (method.getReturnType() != void.class) {
            throw new IllegalStateException(
                    where + " must return void: on instances that do not lead, the method does not run");
        }
        if (!elections.get().groups().contains(group)) {
            throw new IllegalStateException(where + " names group '" + group + "', which is not configured; configured"
                    + " groups are " + elections.get().groups() + " (add it under fencepost.leader.groups)");
        }
    }

    private Object invoke(MethodInvocation invocation) throws Throwable {
        LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(invocation.getMethod(), LeaderOnly.class);
        Optional<Lease> leadership = elections.get().leadership(leaderOnly.value());
        if (leadership.isEmpty()) {
            return null;
        }
        return LockContext.callWith(leadership.get(), lease -> {
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new UndeclaredThrowableException(t);
            }
        });
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
