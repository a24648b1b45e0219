package io.fencepost.lock.spring.aop;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.spring.transaction.TransactionFence;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;

/**
 * The Spring AOP advisor behind {@link DistributedLock @DistributedLock}: matches annotated methods (and the public
 * methods of annotated types) and runs them through a {@link DistributedLockInterceptor}.
 *
 * <p>Every annotated method is parsed once, when its bean's proxy is created or, for lazy and prototype beans, in a
 * scan of all bean types after the singletons exist; a malformed key expression or duration fails the start-up with
 * an {@link InvalidDistributedLockException} naming the method. If annotated methods exist but there is no
 * {@link LockManager}, the start-up fails with a {@link NoLockManagerException} rather than run them unlocked.
 *
 * <p>Its order defaults to {@link #DEFAULT_ORDER}, before (outside) the transaction advisor, so that the lock is
 * taken before a transaction begins and released after it ends.
 */
public class DistributedLockAdvisor extends AbstractLeaseAdvisor
        implements BeanFactoryAware, EnvironmentAware, SmartInitializingSingleton {

    private static final long serialVersionUID = 1L;

    /**
     * The default order: higher precedence than {@code @Transactional}'s advisor (which defaults to
     * {@link Ordered#LOWEST_PRECEDENCE}), leaving room for user advisors on either side.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private static final Log logger = LogFactory.getLog(DistributedLockAdvisor.class);

    private final transient LockDefinitionSource source;

    private final transient DistributedLockInterceptor interceptor;

    private transient BeanFactory beanFactory;

    /**
     * An advisor that locks with the manager {@code lockManager} supplies (null when there is none) and takes the
     * durations an annotation leaves empty from {@code defaults}. Both are asked lazily, after start-up.
     */
    public DistributedLockAdvisor(Supplier<LockManager> lockManager, Supplier<LockOptions> defaults) {
        this(new LockDefinitionSource(), lockManager, defaults);
    }

    private DistributedLockAdvisor(
            LockDefinitionSource source, Supplier<LockManager> lockManager, Supplier<LockOptions> defaults) {
        this(source, new DistributedLockInterceptor(source, lockManager, defaults));
    }

    private DistributedLockAdvisor(LockDefinitionSource source, DistributedLockInterceptor interceptor) {
        super(new LockPointcut(source), interceptor, DEFAULT_ORDER);
        this.source = source;
        this.interceptor = interceptor;
    }

    /** An advisor with a fixed lock manager and the library's default options. */
    public DistributedLockAdvisor(LockManager lockManager) {
        this(() -> Objects.requireNonNull(lockManager, "lockManager"), LockOptions::defaults);
    }

    /**
     * Binds the transactions of {@code fenceTransaction} methods to their leases with the fence {@code transactionFence}
     * supplies (asked after start-up; null means none, and then such methods fail the start-up).
     */
    public void setTransactionFence(Supplier<TransactionFence> transactionFence) {
        interceptor.setTransactionFence(transactionFence);
    }

    /**
     * Observes each call's acquisition and hold in the registry {@code observationRegistry} supplies (asked once,
     * at the first locked call; null means none), so that tracing shows lock spans.
     */
    public void setObservationRegistry(Supplier<ObservationRegistry> observationRegistry) {
        interceptor.setObservationRegistry(observationRegistry);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        interceptor.setBeanResolver(new BeanFactoryResolver(beanFactory));
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            source.setBeanFactory(configurable);
        }
    }

    @Override
    public void setEnvironment(Environment environment) {
        source.setEnvironment(environment);
    }

    /**
     * Parses the locks of every bean (also lazy ones) and checks their options against the defaults, so that every
     * mistake surfaces at start-up.
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (beanFactory instanceof ListableBeanFactory listable) {
            scan(listable);
        }
        List<LockDefinition> definitions = source.definitions();
        if (definitions.isEmpty()) {
            return;
        }
        if (interceptor.lockManager() == null) {
            throw new NoLockManagerException(new ArrayList<>(new TreeSet<>(
                    definitions.stream().map(LockDefinition::method).toList())));
        }
        LockOptions defaults = interceptor.defaults();
        for (LockDefinition definition : definitions) {
            definition.options().over(defaults);
        }
        if (interceptor.fencesTransactions()) {
            new TransactionFenceChecks(interceptor::transactionFence, beanFactory).check(definitions);
        }
    }

    /** The annotated methods found so far, as {@code ClassName.method(ParameterTypes)}. */
    public List<String> lockedMethods() {
        return new ArrayList<>(new TreeSet<>(
                source.definitions().stream().map(LockDefinition::method).toList()));
    }

    private void scan(ListableBeanFactory beanFactory) {
        ConfigurableListableBeanFactory configurable =
                beanFactory instanceof ConfigurableListableBeanFactory c ? c : null;
        for (String name : beanFactory.getBeanDefinitionNames()) {
            if (configurable != null && configurable.getBeanDefinition(name).isAbstract()) {
                continue;
            }
            Object singleton = configurable != null && configurable.containsSingleton(name)
                    ? configurable.getSingleton(name)
                    : null;
            Class<?> type;
            if (singleton != null && !(singleton instanceof FactoryBean)) {
                type = AopProxyUtils.ultimateTargetClass(singleton);
            } else {
                try {
                    type = beanFactory.getType(name, false);
                } catch (RuntimeException e) {
                    continue;
                }
            }
            if (type == null || !AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
                continue;
            }
            List<LockDefinition> found = source.scan(type);
            if (!found.isEmpty()
                    && singleton != null
                    && !(singleton instanceof FactoryBean)
                    && !advisedByThis(singleton)) {
                logger.warn("Bean '" + name + "' has @DistributedLock methods "
                        + found.stream().map(LockDefinition::method).toList()
                        + " but is not proxied by the DistributedLockAdvisor, so calls run unlocked; it was"
                        + " probably created before auto-proxying began (for example as a dependency of a"
                        + " BeanPostProcessor)");
            }
        }
    }

    private boolean advisedByThis(Object bean) {
        if (bean instanceof Advised advised) {
            for (var advisor : advised.getAdvisors()) {
                if (advisor == this || advisor.getAdvice() == interceptor) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Matches methods that {@link LockDefinitionSource} finds a lock for, parsing them on the way. */
    private static final class LockPointcut extends StaticMethodMatcherPointcut {

        private final LockDefinitionSource source;

        LockPointcut(LockDefinitionSource source) {
            this.source = source;
            setClassFilter(new LockClassFilter());
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return source.find(method, targetClass) != null;
        }
    }

    private static final class LockClassFilter implements ClassFilter {

        @Override
        public boolean matches(Class<?> clazz) {
            return AnnotationUtils.isCandidateClass(clazz, DistributedLock.class);
        }
    }
}
