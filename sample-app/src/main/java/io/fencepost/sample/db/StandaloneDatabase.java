package io.fencepost.sample.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.util.concurrent.CountDownLatch;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An embedded PostgreSQL on its own, for {@code run-three.sh}: three instances need one database that outlives
 * each of them. Runs until it is stopped (Ctrl-C or SIGTERM), then deletes its data.
 *
 * <p>{@code java -cp sample-app.jar -Dloader.main=io.fencepost.sample.db.StandaloneDatabase
 * org.springframework.boot.loader.launch.PropertiesLauncher --sample.embedded-database.port=54329}
 */
public final class StandaloneDatabase {

    private StandaloneDatabase() {}

    public static void main(String[] args) throws InterruptedException {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Server.class)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.config.name=standalone-database")
                .registerShutdownHook(true)
                .run(args);
        EmbeddedPostgres postgres = context.getBean(EmbeddedPostgres.class);
        System.out.println("READY " + EmbeddedDatabase.jdbcUrl(postgres));
        new CountDownLatch(1).await();
    }

    /** Only the server: no application, no pool. Not a @Configuration, so that the application never scans it. */
    static class Server {

        @Bean(destroyMethod = "close")
        EmbeddedPostgres embeddedPostgres(@Value("${sample.embedded-database.port:54329}") int port) {
            return EmbeddedDatabase.start(port);
        }
    }
}
