package io.fencepost.lock.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.fencepost.lock.DistributedLock;
import io.fencepost.lock.Lease;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.core.DefaultLockManager;
import io.fencepost.lock.memory.InMemoryLeaseStore;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import io.fencepost.lock.spring.autoconfigure.LockWebAutoConfiguration;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.WebApplicationContext;

/** A busy lock behind a Spring MVC endpoint answers 409 (or 503 with Retry-After) as a problem detail, not 500. */
class LockWebAutoConfigurationTest {

    private static final InMemoryLeaseStore store = new InMemoryLeaseStore();

    private final DefaultLockManager elsewhere =
            DefaultLockManager.builder(store).build();

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    LockAutoConfiguration.class,
                    LockWebAutoConfiguration.class))
            .withBean(LockManager.class, () -> DefaultLockManager.builder(store).build())
            .withBean(InvoiceController.class);

    @AfterEach
    void close() {
        elsewhere.close();
    }

    @RestController
    static class InvoiceController {

        @GetMapping("/invoices/42/settle")
        @DistributedLock(key = "'invoice:42'")
        String settle() {
            return "settled";
        }
    }

    @RestControllerAdvice
    static class ApplicationHandler {

        @ExceptionHandler
        ProblemDetail busy(io.fencepost.lock.LockNotAcquiredException e) {
            return ProblemDetail.forStatus(HttpStatus.TOO_MANY_REQUESTS);
        }
    }

    @Test
    void aBusyLockIsAConflictWithAProblemDetailThatDoesNotNameTheKey() {
        contextRunner.run(context -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/invoices/42/settle")).andExpect(status().isOk());
            try (Lease held = elsewhere.acquire("invoice:42", LockOptions.of(Duration.ofMinutes(1)))) {
                String body = mvc.perform(get("/invoices/42/settle"))
                        .andExpect(status().isConflict())
                        .andExpect(jsonPath("$.status").value(409))
                        .andExpect(jsonPath("$.title").value("Busy"))
                        .andExpect(header().doesNotExist("Retry-After"))
                        .andReturn()
                        .getResponse()
                        .getContentAsString();
                assertThat(body).doesNotContain("invoice:42");
            }
        });
    }

    @Test
    void serviceUnavailableAddsRetryAfter() {
        contextRunner
                .withPropertyValues("fencepost.web.busy-status=service-unavailable", "fencepost.web.retry-after=1500ms")
                .run(context -> {
                    try (Lease held = elsewhere.acquire("invoice:42", LockOptions.of(Duration.ofMinutes(1)))) {
                        mvc(context)
                                .perform(get("/invoices/42/settle"))
                                .andExpect(status().isServiceUnavailable())
                                .andExpect(header().string("Retry-After", "2"))
                                .andExpect(jsonPath("$.status").value(503));
                    }
                });
    }

    @Test
    void theApplicationsOwnHandlerTakesPrecedence() {
        contextRunner.withBean(ApplicationHandler.class).run(context -> {
            try (Lease held = elsewhere.acquire("invoice:42", LockOptions.of(Duration.ofMinutes(1)))) {
                mvc(context).perform(get("/invoices/42/settle")).andExpect(status().isTooManyRequests());
            }
        });
    }

    @Test
    void backsOffWhenDisabledOrOutsideAWebApplication() {
        contextRunner
                .withPropertyValues("fencepost.web.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockNotAcquiredExceptionHandler.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockWebAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(LockNotAcquiredExceptionHandler.class));
        contextRunner.run(context -> assertThat(context).hasSingleBean(LockNotAcquiredExceptionHandler.class));
    }

    private static MockMvc mvc(WebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }
}
