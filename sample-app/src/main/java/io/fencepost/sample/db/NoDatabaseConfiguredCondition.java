package io.fencepost.sample.db;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * Matches when {@code spring.datasource.url} is not set, or set blank (the {@code application.yml} default when
 * {@code SPRING_DATASOURCE_URL} is absent).
 */
class NoDatabaseConfiguredCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String url = context.getEnvironment().getProperty("spring.datasource.url");
        return StringUtils.hasText(url)
                ? ConditionOutcome.noMatch("spring.datasource.url is set")
                : ConditionOutcome.match("spring.datasource.url is not set");
    }
}
