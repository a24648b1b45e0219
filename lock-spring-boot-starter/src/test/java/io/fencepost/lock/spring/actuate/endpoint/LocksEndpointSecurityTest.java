package io.fencepost.lock.spring.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The forced release of the {@code locks} endpoint behind Spring Security itself, in a real MVC application on an
 * embedded server, with every endpoint exposed and write access granted: the {@code SecurityFilterChain} of
 * docs/observability.md keeps callers without credentials or without the role out, and the endpoint's own role check
 * refuses an authenticated caller without it behind a chain that only asks for a login.
 */
class LocksEndpointSecurityTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static final LockOptions HOLD = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .name("accounts")
            .build();

    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The application with the documented chain, shared by the tests of that chain (a start costs seconds). */
    private static ConfigurableApplicationContext documented;

    @BeforeAll
    static void startTheDocumentedApplication() {
        documented = start(DocumentedChain.class);
    }

    @AfterAll
    static void stopTheDocumentedApplication() {
        if (documented != null) {
            documented.close();
        }
    }

    @Test
    void aForcedReleaseWithoutCredentialsIsRefusedAndTheLeaseStaysHeld() throws Exception {
        ConfigurableApplicationContext app = documented;
        LockManager locks = app.getBean(LockManager.class);
        try (Lease lease = locks.acquire("account:1", HOLD)) {
            assertThat(delete(app, "/actuator/locks/account:1", null).statusCode())
                    .isEqualTo(401);
            assertThat(delete(app, "/actuator/locks/account:1", "alice:wrong").statusCode())
                    .isEqualTo(401);

            assertThat(lease.isHeld()).isTrue();
            assertThat(locks.inspect("account:1").orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
        }
    }

    @Test
    void anOperatorWithoutTheLockAdminRoleIsRefusedAndTheLeaseStaysHeld() throws Exception {
        ConfigurableApplicationContext app = documented;
        LockManager locks = app.getBean(LockManager.class);
        try (Lease lease = locks.acquire("account:2", HOLD)) {
            assertThat(get(app, "/actuator/locks/account:2", "olivia:operator-secret")
                            .statusCode())
                    .as("an operator reads")
                    .isEqualTo(200);
            assertThat(delete(app, "/actuator/locks/account:2", "olivia:operator-secret")
                            .statusCode())
                    .isEqualTo(403);

            assertThat(lease.isHeld()).isTrue();
            assertThat(locks.inspect("account:2")).isPresent();
        }
    }

    @Test
    void theLockAdminRoleReleasesTheKeyAndTheNextAcquireIsGranted() throws Exception {
        ConfigurableApplicationContext app = documented;
        try (PostgresLockManager elsewhere = PostgresLockManager.builder(db.dataSource())
                .holderName("elsewhere@test")
                .build()) {
            LockManager locks = app.getBean(LockManager.class);
            Lease stuck = locks.acquire("account:3", HOLD);
            assertThat(elsewhere.tryAcquire("account:3", HOLD)).isEmpty();

            HttpResponse<String> response = delete(app, "/actuator/locks/account:3", "alice:admin-secret");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<Boolean>read(response.body(), "$.released")).isTrue();
            assertThat(JsonPath.<String>read(response.body(), "$.requestedBy")).isEqualTo("alice");
            assertThat(stuck.isHeld()).isFalse();
            try (Lease next = elsewhere.tryAcquire("account:3", HOLD).orElseThrow()) {
                assertThat(next.fencingToken()).isGreaterThan(stuck.fencingToken());
            }
            stuck.close();
        }
    }

    @Test
    void behindAChainThatOnlyAsksForALoginTheEndpointStillRequiresTheRole() throws Exception {
        try (ConfigurableApplicationContext app = start(LoginOnlyChain.class)) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease lease = locks.acquire("account:4", HOLD)) {
                HttpResponse<String> operator = delete(app, "/actuator/locks/account:4", "olivia:operator-secret");

                assertThat(operator.statusCode()).isEqualTo(403);
                assertThat(JsonPath.<String>read(operator.body(), "$.message"))
                        .contains("LOCK_ADMIN", "fencepost.endpoint.force-release.role");
                assertThat(lease.isHeld()).isTrue();
                assertThat(locks.inspect("account:4")).isPresent();

                assertThat(delete(app, "/actuator/locks/account:4", "alice:admin-secret")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(lease.isHeld()).isFalse();
            }
        }
    }

    private static ConfigurableApplicationContext start(Class<?> application) {
        return new SpringApplicationBuilder(application)
                .properties(
                        "server.port=0",
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "spring.flyway.enabled=false",
                        "fencepost.holder-name=billing@test",
                        "management.endpoints.web.exposure.include=*",
                        "management.endpoint.locks.access=unrestricted",
                        "fencepost.endpoint.force-release.enabled=true")
                // this class path's application.properties keeps Spring Security out of the other tests' applications
                .run("--spring.autoconfigure.exclude=");
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext app, String path, String credentials)
            throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(app, path)).GET(), credentials);
    }

    private static HttpResponse<String> delete(ConfigurableApplicationContext app, String path, String credentials)
            throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(app, path)).DELETE(), credentials);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request, String credentials)
            throws IOException, InterruptedException {
        if (credentials != null) {
            request.header(
                    "Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        return URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + path);
    }

    /** alice may force-release; olivia is an operator who may read. */
    static UserDetailsService operators() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice")
                        .password("{noop}admin-secret")
                        .roles("LOCK_ADMIN", "OPERATOR")
                        .build(),
                User.withUsername("olivia")
                        .password("{noop}operator-secret")
                        .roles("OPERATOR")
                        .build());
    }

    /** The application of docs/observability.md: its SecurityFilterChain as printed there. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class DocumentedChain {

        @Bean
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests(requests -> requests.requestMatchers(HttpMethod.DELETE, "/actuator/locks/**")
                            .hasRole("LOCK_ADMIN")
                            .anyRequest()
                            .hasRole("OPERATOR"))
                    .httpBasic(Customizer.withDefaults())
                    .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return operators();
        }
    }

    /** A chain that lets any authenticated caller through to every endpoint operation. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class LoginOnlyChain {

        @Bean
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return operators();
        }
    }
}
