package io.fencepost.sample.lab;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The lab page's JSON API. */
@RestController
@RequestMapping("/api/lab")
public class LabController {

    private final Lab lab;

    public LabController(Lab lab) {
        this.lab = lab;
    }

    /** The lab's state, with the log entries after {@code since}. */
    @GetMapping
    public LabState state(@RequestParam(defaultValue = "0") long since) {
        return lab.state(since);
    }

    @PostMapping("/start")
    public ResponseEntity<Void> start() {
        lab.start();
        return ResponseEntity.noContent().build();
    }

    @PostMapping("/stop")
    public ResponseEntity<Void> stop() {
        lab.stop();
        return ResponseEntity.noContent().build();
    }

    @PostMapping("/reset")
    public ResponseEntity<Void> reset() {
        lab.reset();
        return ResponseEntity.noContent().build();
    }

    /** Freezes the holder past its lease: a simulated GC pause. */
    @PostMapping("/pause")
    public ResponseEntity<Void> pause() {
        lab.pauseHolder();
        return ResponseEntity.accepted().build();
    }

    /**
     * Runs a step of the walk-through once: {@code race}, {@code dead-holder}, {@code stale-release},
     * {@code renewal}, {@code failover-async} or {@code failover-sync}; 409 while another step runs. Its result shows
     * in the state's {@code results}.
     */
    @PostMapping("/steps/{id}")
    public ResponseEntity<Void> step(@PathVariable String id) {
        return lab.runStep(id)
                ? ResponseEntity.accepted().build()
                : ResponseEntity.status(HttpStatus.CONFLICT).build();
    }

    /** Cuts the workers' lock connections for a moment. */
    @PostMapping("/kill-store")
    public ResponseEntity<Void> killStore() {
        lab.killStore();
        return ResponseEntity.accepted().build();
    }

    /** {@code enabled=true|false}: a fence column or nothing; {@code mode=column|transaction|off}. */
    @PostMapping("/fencing")
    public ResponseEntity<Void> fencing(
            @RequestParam(required = false) Boolean enabled, @RequestParam(required = false) String mode) {
        if (mode != null) {
            lab.fencing(mode);
        } else if (enabled != null) {
            lab.fencing(enabled);
        } else {
            return ResponseEntity.badRequest().build();
        }
        return ResponseEntity.noContent().build();
    }

    @ExceptionHandler
    ProblemDetail badRequest(IllegalArgumentException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    }
}
