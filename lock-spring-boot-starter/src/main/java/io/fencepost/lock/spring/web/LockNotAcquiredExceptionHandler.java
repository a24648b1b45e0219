package io.fencepost.lock.spring.web;

import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockStoreException;
import io.fencepost.lock.internal.LogSafe;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockNotAcquiredException} that reaches Spring MVC as a problem detail with 409, or 503 and a
 * {@code Retry-After} header, instead of a 500. A busy lock is a normal outcome under contention, not a server error.
 * A {@link LockStoreException} (the lock store did not answer in time, so the lock failed closed) is answered 503
 * with {@code Retry-After}: the service is unavailable for a moment, and nothing ran. The answer does not name the key:
 * lock keys are the application's internals; the exception's message, with the key, goes to the DEBUG log (the
 * outage itself shows in the {@code locks} health and the {@code result=error} metrics). Ordered last, so that the
 * application's own handlers take precedence.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockNotAcquiredExceptionHandler {

    private static final Log logger = LogFactory.getLog(LockNotAcquiredExceptionHandler.class);

    private final HttpStatus status;

    private final Duration retryAfter;

    /**
     * @param status {@link HttpStatus#CONFLICT} or {@link HttpStatus#SERVICE_UNAVAILABLE}
     * @param retryAfter sent as {@code Retry-After} (whole seconds, rounded up) with {@code SERVICE_UNAVAILABLE}
     */
    public LockNotAcquiredExceptionHandler(HttpStatus status, Duration retryAfter) {
        if (status != HttpStatus.CONFLICT && status != HttpStatus.SERVICE_UNAVAILABLE) {
            throw new IllegalArgumentException(
                    "a busy lock is answered with 409 CONFLICT or 503 SERVICE_UNAVAILABLE, was " + status);
        }
        if (retryAfter == null || retryAfter.isNegative()) {
            throw new IllegalArgumentException("Retry-After must be zero or positive, was " + retryAfter);
        }
        this.status = status;
        this.retryAfter = retryAfter;
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> busy(LockNotAcquiredException e) {
        if (logger.isDebugEnabled()) {
            logger.debug("Answering " + status.value() + ": " + LogSafe.text(e.getMessage()));
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                status, "Another request holds a lock that this request needs; try again.");
        problem.setTitle("Busy");
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(status);
        if (status == HttpStatus.SERVICE_UNAVAILABLE) {
            answer.header(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds()));
        }
        return answer.body(problem);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> storeUnavailable(LockStoreException e) {
        if (logger.isDebugEnabled()) {
            logger.debug("Answering 503: " + LogSafe.text(e.getMessage()));
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE,
                "The lock store did not answer in time, so this request did not run; try again.");
        problem.setTitle("Lock store unavailable");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, retryAfterSeconds())))
                .body(problem);
    }

    private long retryAfterSeconds() {
        long seconds = retryAfter.getSeconds();
        return retryAfter.getNano() > 0 ? seconds + 1 : seconds;
    }
}
