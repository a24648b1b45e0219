package io.fencepost.sample.db;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * With no {@code spring.datasource.url}, starts an embedded PostgreSQL as a bean (stopped, and its data deleted,
 * when the application stops) and gives the application a pool on it. Boot's own {@code DataSource}
 * auto-configuration then backs off; {@code spring.datasource.hikari.*} still applies.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(NoDatabaseConfiguredCondition.class)
public class EmbeddedDatabaseConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabaseConfiguration.class);

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres(@Value("${sample.embedded-database.port:0}") int port) {
        EmbeddedPostgres postgres = EmbeddedDatabase.start(port);
        LOG.warn(
                "No database configured (spring.datasource.url / SPRING_DATASOURCE_URL is not set): started an"
                        + " EMBEDDED PostgreSQL on port {} ({}). Its data is deleted when the application stops."
                        + " Set SPRING_DATASOURCE_URL to use your own database.",
                postgres.getPort(),
                EmbeddedDatabase.jdbcUrl(postgres));
        return postgres;
    }

    @Bean
    @ConfigurationProperties("spring.datasource.hikari")
    HikariDataSource dataSource(EmbeddedPostgres embeddedPostgres) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(EmbeddedDatabase.jdbcUrl(embeddedPostgres));
        return dataSource;
    }
}
