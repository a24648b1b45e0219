package io.fencepost.lock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.aop.LockExpressionRoot;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Spring AOT: the auto-configuration is processed ahead of time (its bean definitions become generated code) and
 * registers the runtime hints a native image needs: the schema resources and the key expressions' root object.
 */
class AheadOfTimeTest {

    @RegisterExtension
    static final PostgresTestDatabase db = new PostgresTestDatabase();

    @Test
    void theAutoConfigurationIsProcessedAheadOfTimeWithItsRuntimeHints() {
        InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
        DefaultGenerationContext generation =
                new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(AheadOfTimeTest.class)), files);
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
            context.registerBean(Application.class);

            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        }
        generation.writeGeneratedContent();

        assertThat(files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE).keySet())
                .anySatisfy(source -> assertThat(source).contains("LockAutoConfiguration__BeanDefinitions"));
        RuntimeHints hints = generation.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.resource()
                        .forResource("io/fencepost/lock/jdbc/migration/V1__create_lock_table.sql"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("io/fencepost/lock/jdbc/schema-postgresql.sql"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(LockExpressionRoot.class)
                        .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
                .accepts(hints);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LockAutoConfiguration.class)
    static class Application {

        @Bean
        DataSource dataSource() {
            return db.dataSource();
        }
    }
}
