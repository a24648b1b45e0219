package io.fencepost.sample.ledger;

import io.fencepost.lock.FencingTokenRejectedException;
import io.fencepost.lock.LeaseLostException;
import io.fencepost.lock.LockNotAcquiredException;
import io.fencepost.lock.LockStoreException;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The ledger's REST API: accounts, transfers and settlement runs. */
@RestController
@RequestMapping("/api")
public class LedgerController {

    private final TransferService transferService;

    private final AccountRepository accounts;

    private final TransferRepository transfers;

    private final SettlementRunRepository settlements;

    public LedgerController(
            TransferService transferService,
            AccountRepository accounts,
            TransferRepository transfers,
            SettlementRunRepository settlements) {
        this.transferService = transferService;
        this.accounts = accounts;
        this.transfers = transfers;
        this.settlements = settlements;
    }

    /** A transfer request: {@code {"from": "alice", "to": "bob", "amountCents": 1250}}. */
    public record TransferRequest(String from, String to, long amountCents) {}

    /** The accounts and the sum of their balances (constant: transfers only move money). */
    public record AccountsView(List<Account> accounts, long totalCents, long unsettledTransfers) {}

    @GetMapping("/accounts")
    public AccountsView accounts() {
        return new AccountsView(accounts.findAllByOrderByIdAsc(), accounts.totalCents(), transfers.countUnsettled());
    }

    @PostMapping("/transfers")
    public ResponseEntity<Transfer> transfer(@RequestBody TransferRequest request) {
        Transfer transfer = transferService.transfer(request.from(), request.to(), request.amountCents());
        return ResponseEntity.created(URI.create("/api/transfers/" + transfer.id()))
                .body(transfer);
    }

    @GetMapping("/transfers")
    public List<Transfer> recentTransfers() {
        return transfers.findTop20ByOrderByIdDesc();
    }

    @GetMapping("/settlements")
    public List<SettlementRun> recentSettlements() {
        return settlements.findTop20ByOrderByIdDesc();
    }

    @ExceptionHandler
    ProblemDetail rejected(TransferRejectedException e) {
        return ProblemDetail.forStatusAndDetail(e.status(), e.getMessage());
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> busy(LockNotAcquiredException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage()));
    }

    @ExceptionHandler
    ProblemDetail storeDown(LockStoreException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }

    @ExceptionHandler
    ProblemDetail lost(LeaseLostException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage() + "; nothing was booked");
    }

    @ExceptionHandler
    ProblemDetail fenced(FencingTokenRejectedException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage() + "; nothing was booked");
    }
}
