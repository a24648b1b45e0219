package io.fencepost.lock.spring.autoconfigure;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * Checks {@link LockProperties} as soon as they are bound, before any bean uses them, so that an invalid value fails
 * the start-up with an {@link InvalidLockPropertyException} that quotes it as the configuration wrote it.
 */
final class LockPropertiesValidator implements BeanPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof LockProperties properties) {
            new LockPropertyRules(this::written).check(properties);
        }
        return bean;
    }

    /** The value as written (-5s, not PT-5S), under whichever relaxed name it was set; else the bound value. */
    private String written(String property, Object bound) {
        ConfigurationPropertyName name = ConfigurationPropertyName.ofIfValid(property);
        if (name != null && environment instanceof ConfigurableEnvironment) {
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
                ConfigurationProperty configured = source.getConfigurationProperty(name);
                if (configured != null && configured.getValue() != null) {
                    return String.valueOf(configured.getValue());
                }
            }
        }
        return bound == null ? "" : bound.toString();
    }
}
