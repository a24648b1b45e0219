package io.fencepost.sample.ledger;

import org.springframework.http.HttpStatus;

/** A transfer that cannot be booked as asked: the message says why, the status how the API answers. */
public class TransferRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HttpStatus status;

    TransferRejectedException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    /** How the REST API answers. */
    public HttpStatus status() {
        return status;
    }
}
