package io.fencepost.lock.spring.actuate.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.jayway.jsonpath.JsonPath;
import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.JdbcFencingGuard;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The {@code locks} endpoint over real HTTP, in an application on an embedded server and a real PostgreSQL: what it
 * lists and shows, that no owner token ever leaves, and that a forced release is refused until enabled, and then frees
 * the key while fencing still refuses the old holder's late write.
 */
@ExtendWith(OutputCaptureExtension.class)
class LocksEndpointHttpTest {

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void createAccounts() {
        db.execute("CREATE TABLE account (id integer PRIMARY KEY, balance integer NOT NULL, fence bigint NOT NULL);"
                + " INSERT INTO account VALUES (7, 100, 0)");
    }

    @Test
    void listsTheLeasesThisInstanceHoldsWithoutTheirOwnerTokens() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease invoice = locks.acquire("invoice:42", options("billing"));
                    Lease report = locks.acquire("tenant/7/report", options("reports"))) {
                HttpResponse<String> response = get(app, "/actuator/locks");

                assertThat(response.statusCode()).isEqualTo(200);
                String body = response.body();
                assertThat(JsonPath.<String>read(body, "$.holder")).isEqualTo("billing@test");
                assertThat(JsonPath.<List<String>>read(body, "$.leases[*].key"))
                        .containsExactly("invoice:42", "tenant/7/report");
                Map<String, Object> lease = JsonPath.read(body, "$.leases[0]");
                assertThat(lease)
                        .containsEntry("name", "billing")
                        .containsEntry("fencingToken", (int) invoice.fencingToken())
                        .containsEntry("holdCount", 1)
                        .containsEntry("holderThread", Thread.currentThread().getName())
                        .containsKeys("acquiredAt", "expiresAt", "renewals");
                assertThat(body)
                        .doesNotContain(ownerToken("invoice:42"))
                        .doesNotContain(ownerToken("tenant/7/report"))
                        .doesNotContainIgnoringCase("owner");
            }
        }
    }

    @Test
    void showsTheModeAndPermitsOfSharedLeasesAndPermitsWithoutTheirOwnerTokens() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            LockManager locks = app.getBean(LockManager.class);
            LockOptions read = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(30))
                    .name("catalog")
                    .shared(true)
                    .build();
            LockOptions slot = LockOptions.builder()
                    .leaseTime(Duration.ofSeconds(30))
                    .name("render")
                    .permits(3)
                    .build();
            // a second reader on another thread: the same thread would re-enter its shared lease
            Lease otherReader = CompletableFuture.supplyAsync(() -> locks.acquire("catalog", read))
                    .get(10, TimeUnit.SECONDS);
            try (Lease reader = locks.acquire("catalog", read);
                    Lease permit = locks.acquire("renderer", slot)) {
                String held = get(app, "/actuator/locks").body();
                assertThat(JsonPath.<List<String>>read(held, "$.leases[*].mode"))
                        .containsExactly("SHARED", "SHARED", "PERMITS");
                assertThat(JsonPath.<List<Integer>>read(held, "$.leases[*].permits"))
                        .containsExactly(0, 0, 3);

                String catalog = get(app, "/actuator/locks/catalog").body();
                assertThat(JsonPath.<String>read(catalog, "$.mode")).isEqualTo("SHARED");
                assertThat(JsonPath.<Integer>read(catalog, "$.leases")).isEqualTo(2);
                assertThat(JsonPath.<Integer>read(catalog, "$.fencingToken"))
                        .isEqualTo((int) Math.max(reader.fencingToken(), otherReader.fencingToken()));
                assertThat(JsonPath.<Boolean>read(catalog, "$.heldByThisInstance"))
                        .isTrue();
                String renderer = get(app, "/actuator/locks/renderer").body();
                assertThat(JsonPath.<Integer>read(renderer, "$.permits")).isEqualTo(3);
                assertThat(JsonPath.<Integer>read(renderer, "$.leases")).isEqualTo(1);

                List<String> ownerTokens = new JdbcTemplate(db.dataSource())
                        .queryForList(
                                "SELECT jsonb_object_keys(holders) FROM distributed_lock WHERE lock_key IN (?, ?)",
                                String.class,
                                "catalog",
                                "renderer");
                assertThat(ownerTokens).hasSize(3);
                for (String token : ownerTokens) {
                    assertThat(held + catalog + renderer).doesNotContain(token);
                }
            } finally {
                otherReader.release();
            }
        }
    }

    @Test
    void showsTheStoresViewOfAKeyAnd404WhenItIsFree() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease lease = locks.acquire("invoice:43", options("billing"));
                    PostgresLockManager elsewhere = PostgresLockManager.builder(db.dataSource())
                            .holderName("other@test")
                            .build();
                    Lease foreign = elsewhere.acquire("tenant/8/report", options("reports"))) {
                HttpResponse<String> mine = get(app, "/actuator/locks/invoice:43");
                assertThat(mine.statusCode()).isEqualTo(200);
                // the fields of docs/observability.md, all at the top level
                assertThat(JsonPath.<Map<String, Object>>read(mine.body(), "$").keySet())
                        .containsExactlyInAnyOrder(
                                "key",
                                "fencingToken",
                                "holder",
                                "acquiredAt",
                                "expiresAt",
                                "mode",
                                "permits",
                                "leases",
                                "heldByThisInstance");
                assertThat(JsonPath.<String>read(mine.body(), "$.key")).isEqualTo("invoice:43");
                assertThat(JsonPath.<Integer>read(mine.body(), "$.fencingToken"))
                        .isEqualTo((int) lease.fencingToken());
                assertThat(JsonPath.<String>read(mine.body(), "$.holder")).isEqualTo("billing@test");
                assertThat(JsonPath.<Boolean>read(mine.body(), "$.heldByThisInstance"))
                        .isTrue();
                assertThat(mine.body()).doesNotContain(ownerToken("invoice:43"));

                HttpResponse<String> theirs = get(app, "/actuator/locks/tenant/8/report");
                assertThat(theirs.statusCode()).isEqualTo(200);
                assertThat(JsonPath.<String>read(theirs.body(), "$.key")).isEqualTo("tenant/8/report");
                assertThat(JsonPath.<String>read(theirs.body(), "$.holder")).isEqualTo("other@test");
                assertThat(JsonPath.<Boolean>read(theirs.body(), "$.heldByThisInstance"))
                        .isFalse();
                assertThat(theirs.body()).doesNotContain(ownerToken("tenant/8/report"));

                assertThat(get(app, "/actuator/locks/invoice:free").statusCode())
                        .isEqualTo(404);
            }
        }
    }

    @Test
    void refusesAForcedReleaseUnlessEnabled(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext app =
                start(UNRESTRICTED, "logging.level.io.fencepost.lock.spring.actuate.endpoint=debug")) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease lease = locks.acquire("account:6", options("accounts"))) {
                HttpResponse<String> response = delete(app, "/actuator/locks/account:6", "mallory", "LOCK_ADMIN");

                assertThat(response.statusCode()).isEqualTo(403);
                assertThat(JsonPath.<Boolean>read(response.body(), "$.released"))
                        .isFalse();
                assertThat(JsonPath.<String>read(response.body(), "$.message"))
                        .contains("disabled", "fencepost.endpoint.force-release.enabled=true");
                assertThat(lease.isHeld()).isTrue();
                assertThat(locks.inspect("account:6")).isPresent();
                assertThat(output).containsPattern("DEBUG .*Refused to force-release lock 'account:6' for 'mallory'");
            }
        }
    }

    @Test
    void anEnabledForcedReleaseFreesTheKeyAndFencingRefusesTheOldHoldersLateWrite(CapturedOutput output)
            throws Exception {
        JdbcFencingGuard guard = new JdbcFencingGuard();
        try (ConfigurableApplicationContext app = start(UNRESTRICTED, ENABLED);
                PostgresLockManager newcomer = PostgresLockManager.builder(db.dataSource())
                        .holderName("newcomer@test")
                        .build()) {
            LockManager locks = app.getBean(LockManager.class);
            Lease old = locks.acquire("account:7", options("accounts"));
            String oldOwnerToken = ownerToken("account:7");

            HttpResponse<String> response = delete(app, "/actuator/locks/account:7", "alice", "LOCK_ADMIN");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<String>read(response.body(), "$.key")).isEqualTo("account:7");
            assertThat(JsonPath.<Boolean>read(response.body(), "$.released")).isTrue();
            assertThat(JsonPath.<String>read(response.body(), "$.requestedBy")).isEqualTo("alice");
            assertThat(response.body()).doesNotContain(oldOwnerToken);
            assertThat(output)
                    .containsPattern(
                            "INFO .*Lock 'account:7' was force-released through the locks endpoint by 'alice'");
            assertThat(locks.inspect("account:7")).isEmpty();
            assertThat(old.isHeld()).isFalse();
            assertThatExceptionOfType(LeaseLostException.class).isThrownBy(old::checkHeld);

            try (Lease fresh = newcomer.acquire("account:7", options("accounts"))) {
                assertThat(fresh.fencingToken()).isGreaterThan(old.fencingToken());
                assertThat(fencedWrite(guard, fresh.fencingToken(), 150)).isOne();
            }
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .as("the old holder's late write after the new holder's")
                    .isThrownBy(() -> fencedWrite(guard, old.fencingToken(), 90));
            assertThat(new JdbcTemplate(db.dataSource())
                            .queryForObject("SELECT balance FROM account WHERE id = 7", Integer.class))
                    .isEqualTo(150);
            old.close();
        }
    }

    @Test
    void theEndpointIsReadOnlyUnlessTheApplicationGrantsMore() throws Exception {
        try (ConfigurableApplicationContext app = start(ENABLED)) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease lease = locks.acquire("account:8", options("accounts"))) {
                HttpResponse<String> response = delete(app, "/actuator/locks/account:8", "alice", "LOCK_ADMIN");

                assertThat(response.statusCode())
                        .as("no write operation is mapped")
                        .isNotEqualTo(200);
                assertThat(get(app, "/actuator/locks/account:8").statusCode()).isEqualTo(200);
                assertThat(lease.isHeld()).isTrue();
                assertThat(locks.inspect("account:8")).isPresent();
            }
        }
    }

    @Test
    void anEnabledForcedReleaseIsRefusedToACallerWithoutAPrincipalOrWithoutTheRole() throws Exception {
        try (ConfigurableApplicationContext app = start(UNRESTRICTED, ENABLED)) {
            LockManager locks = app.getBean(LockManager.class);
            try (Lease lease = locks.acquire("account:9", options("accounts"))) {
                HttpResponse<String> anonymous = delete(app, "/actuator/locks/account:9", null, null);
                assertThat(anonymous.statusCode()).isEqualTo(403);
                assertThat(JsonPath.<String>read(anonymous.body(), "$.message"))
                        .contains("authenticated caller", "fencepost.endpoint.force-release.allow-anonymous=true");

                HttpResponse<String> withoutRole = delete(app, "/actuator/locks/account:9", "mallory", "USER");
                assertThat(withoutRole.statusCode()).isEqualTo(403);
                assertThat(JsonPath.<String>read(withoutRole.body(), "$.message"))
                        .contains("LOCK_ADMIN", "fencepost.endpoint.force-release.role");

                assertThat(lease.isHeld()).isTrue();
                assertThat(locks.inspect("account:9")).isPresent();
            }
        }
    }

    @Test
    void anAllowedForcedReleaseWithoutAPrincipalIsLoggedAsAnonymous(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext app =
                start(UNRESTRICTED, ENABLED, "fencepost.endpoint.force-release.allow-anonymous=true")) {
            HttpResponse<String> response = delete(app, "/actuator/locks/account:free", null, null);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(JsonPath.<Boolean>read(response.body(), "$.released")).isFalse();
            assertThat(JsonPath.<String>read(response.body(), "$.requestedBy")).isEqualTo("anonymous");
            assertThat(output)
                    .contains("Lock 'account:free' was force-released through the locks endpoint by 'anonymous'"
                            + " (there was no live lease)");
        }
    }

    /** Writes the account's balance in one transaction, fenced by {@code token}; returns the rows updated. */
    private static int fencedWrite(JdbcFencingGuard guard, long token, int balance) throws SQLException {
        try (Connection connection = db.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE account SET balance = ?, fence = ? WHERE id = 7 AND fence <= ?")) {
                guard.check(connection, "account:7", token);
                update.setInt(1, balance);
                update.setLong(2, token);
                update.setLong(3, token);
                int rows = update.executeUpdate();
                connection.commit();
                return rows;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    private static String ownerToken(String key) {
        String token = new JdbcTemplate(db.dataSource())
                .queryForObject("SELECT owner_token::text FROM distributed_lock WHERE lock_key = ?", String.class, key);
        assertThat(token).isNotBlank();
        return token;
    }

    private static LockOptions options(String name) {
        return LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .name(name)
                .build();
    }

    private static final String UNRESTRICTED = "management.endpoint.locks.access=unrestricted";

    private static final String ENABLED = "fencepost.endpoint.force-release.enabled=true";

    private ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(LocksApplication.class)
                .properties(
                        "server.port=0",
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "spring.flyway.enabled=false",
                        "fencepost.holder-name=billing@test",
                        "management.endpoints.web.exposure.include=locks")
                .properties(properties)
                .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(app, path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> delete(ConfigurableApplicationContext app, String path, String user, String role)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(app, path)).DELETE();
        if (user != null) {
            request.header(TestPrincipalFilter.USER_HEADER, user);
        }
        if (role != null) {
            request.header(TestPrincipalFilter.ROLE_HEADER, role);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        return URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + path);
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class LocksApplication {

        @Bean
        TestPrincipalFilter testPrincipalFilter() {
            return new TestPrincipalFilter();
        }
    }

    /** Stands in for an authentication layer: the request's principal is the user named in a header. */
    static class TestPrincipalFilter extends OncePerRequestFilter {

        static final String USER_HEADER = "X-Test-User";

        static final String ROLE_HEADER = "X-Test-Role";

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            String user = request.getHeader(USER_HEADER);
            if (user == null) {
                chain.doFilter(request, response);
                return;
            }
            Principal principal = () -> user;
            String role = request.getHeader(ROLE_HEADER);
            chain.doFilter(
                    new HttpServletRequestWrapper(request) {
                        @Override
                        public Principal getUserPrincipal() {
                            return principal;
                        }

                        @Override
                        public boolean isUserInRole(String asked) {
                            return asked.equals(role);
                        }
                    },
                    response);
        }
    }
}
