package io.fencepost.lock.spring.testing;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Adds the test locks' configuration to the test's context. Equal for equal settings, so that Spring's context cache
 * gives test classes with the same setting one context.
 */
final class TestLocksContextCustomizer implements ContextCustomizer {

    private final AutoConfigureTestLocks.Store store;

    TestLocksContextCustomizer(AutoConfigureTestLocks.Store store) {
        this.store = store;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
        if (!(context.getBeanFactory() instanceof BeanDefinitionRegistry registry)) {
            throw new IllegalStateException("@AutoConfigureTestLocks needs a context that takes bean definitions, was "
                    + context.getClass().getName());
        }
        // A configuration class registered before the application's auto-configuration is evaluated: the starter's
        // lock manager backs off (it is @ConditionalOnMissingBean(LockManager.class)).
        Class<?> configurationClass = switch (store) {
            case IN_MEMORY -> TestLocksConfiguration.InMemory.class;
            case POSTGRES -> TestLocksConfiguration.Postgres.class;
        };
        registry.registerBeanDefinition(
                TestLocksConfiguration.class.getName(), new RootBeanDefinition(configurationClass));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TestLocksContextCustomizer customizer && customizer.store == store;
    }

    @Override
    public int hashCode() {
        return store.hashCode();
    }
}
