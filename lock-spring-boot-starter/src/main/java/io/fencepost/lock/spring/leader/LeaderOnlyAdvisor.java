package io.fencepost.lock.spring.leader;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spring.aop.AbstractLeaseAdvisor;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The advisor behind {@link LeaderOnly @LeaderOnly}: a call runs the method inside the group's leadership lease when
 * this instance leads the group, and returns at once otherwise. A method whose group is not configured, or that does
 * not return {@code void}, fails the start-up when its bean is proxied.
 */
public class LeaderOnlyAdvisor extends AbstractLeaseAdvisor {

    private static final long serialVersionUID = 1L;

    /** Outside {@code @DistributedLock} and transactions. */
    private static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 200;

    /** An advisor that asks the elections {@code elections} supplies, lazily. */
    public LeaderOnlyAdvisor(Supplier<LeaderElections> elections) {
        super(new LeaderOnlyPointcut(elections), new LeaderOnlyInterceptor(elections), DEFAULT_ORDER);
    }

    /** Matches {@code @LeaderOnly} methods, checking each as its bean is proxied. */
    private static final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

        private final Supplier<LeaderElections> elections;

        LeaderOnlyPointcut(Supplier<LeaderElections> elections) {
            this.elections = elections;
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
            if (leaderOnly == null) {
                return false;
            }
            check(method, leaderOnly.value());
            return true;
        }

        private void check(Method method, String group) {
            String where =
                    "@LeaderOnly on " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
            if (method.getReturnType() != void.class) {
                throw new IllegalStateException(
                        where + " must return void: on instances that do not lead, the method does not run");
            }
            if (!elections.get().groups().contains(group)) {
                throw new IllegalStateException(where + " names group '" + group + "', which is not configured;"
                        + " configured groups are " + elections.get().groups()
                        + " (add it under fencepost.leader.groups)");
            }
        }
    }

    /** Runs the method inside the group's leadership lease when this instance leads, and returns at once otherwise. */
    private static final class LeaderOnlyInterceptor implements MethodInterceptor {

        private final Supplier<LeaderElections> elections;

        LeaderOnlyInterceptor(Supplier<LeaderElections> elections) {
            this.elections = elections;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            LeaderOnly leaderOnly =
                    AnnotatedElementUtils.findMergedAnnotation(invocation.getMethod(), LeaderOnly.class);
            Optional<Lease> leadership = elections.get().leadership(leaderOnly.value());
            if (leadership.isEmpty()) {
                return null;
            }
            return proceedInside(leadership.get(), invocation);
        }
    }
}
