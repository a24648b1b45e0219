package io.fencepost.lock.spring.testing;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Finds {@link AutoConfigureTestLocks} on a test class, its superclasses or, for {@code @Nested} tests, its enclosing
 * classes, as Spring finds its own test annotations (registered in {@code META-INF/spring.factories}).
 */
class TestLocksContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        AutoConfigureTestLocks annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureTestLocks.class);
        return annotation == null ? null : new TestLocksContextCustomizer(annotation.store());
    }
}
