package io.fencepost.lock.spring.testing;

import java.util.List;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;

/** Finds {@link AutoConfigureTestLocks} on a test class (registered in {@code META-INF/spring.factories}). */
class TestLocksContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return MergedAnnotations.from(testClass, SearchStrategy.TYPE_HIERARCHY)
                .get(AutoConfigureTestLocks.class)
                .synthesize(annotation -> annotation.isPresent())
                .map(annotation -> new TestLocksContextCustomizer(annotation.store()))
                .orElse(null);
    }
}
