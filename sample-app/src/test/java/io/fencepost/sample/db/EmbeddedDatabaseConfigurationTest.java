package io.fencepost.sample.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class EmbeddedDatabaseConfigurationTest {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withUserConfiguration(EmbeddedDatabaseConfiguration.class);

    @Test
    void aBlankDatasourceUrlStartsAnEmbeddedPostgresThatStopsWithTheContext() {
        AtomicInteger port = new AtomicInteger();
        runner.withPropertyValues("spring.datasource.url=").run(context -> {
            assertThat(context).hasSingleBean(EmbeddedPostgres.class).hasSingleBean(DataSource.class);
            port.set(context.getBean(EmbeddedPostgres.class).getPort());
            try (Connection connection = context.getBean(DataSource.class).getConnection()) {
                assertThat(connection.getMetaData().getDatabaseProductName()).isEqualTo("PostgreSQL");
            }
        });
        assertThatExceptionOfType(SQLException.class)
                .as("the embedded server is stopped with the context")
                .isThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://localhost:" + port.get()
                                + "/postgres?user=postgres&connectTimeout=2")
                        .close());
    }

    @Test
    void aConfiguredDatasourceUrlLeavesTheDatabaseToSpringBoot() {
        runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://localhost:5432/ledger")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(EmbeddedPostgres.class)
                        .doesNotHaveBean(DataSource.class));
    }
}
