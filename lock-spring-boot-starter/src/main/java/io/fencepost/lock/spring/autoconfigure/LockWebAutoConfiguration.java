package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.spring.web.LockNotAcquiredExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * With Spring MVC, answers a busy lock ({@link LockNotAcquiredException}) as a problem detail with 409, or 503 and
 * {@code Retry-After} ({@code fencepost.web.*}), instead of a 500.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({DispatcherServlet.class, LockNotAcquiredException.class})
@ConditionalOnProperty(prefix = "fencepost.web", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
@Import(LockPropertiesValidator.class)
public final class LockWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockNotAcquiredExceptionHandler lockNotAcquiredExceptionHandler(LockProperties properties) {
        LockProperties.Web web = properties.getWeb();
        HttpStatus status = web.getBusyStatus() == LockProperties.BusyStatus.SERVICE_UNAVAILABLE
                ? HttpStatus.SERVICE_UNAVAILABLE
                : HttpStatus.CONFLICT;
        return new LockNotAcquiredExceptionHandler(status, web.getRetryAfter());
    }
}
