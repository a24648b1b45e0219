package io.fencepost.lock.jdbc.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The proxy's own faults, which the outage tests rely on: once {@link TcpProxy#refuse()} returns, no connection
 * through it works any more, including those it was still setting up when it was told to refuse.
 */
class TcpProxyTest {

    private static final int CLIENTS = 40;

    @Test
    void refusingClosesEveryConnectionEvenThoseStillBeingSetUp() throws Exception {
        // An upstream that accepts and never answers: a connection the proxy left open would read nothing, for good.
        try (ServerSocket upstream = new ServerSocket(0, 200, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                while (!upstream.isClosed()) {
                    try {
                        accepted.add(upstream.accept());
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            for (int round = 0; round < 10; round++) {
                List<Socket> clients = new ArrayList<>();
                try (TcpProxy proxy =
                        new TcpProxy(upstream.getInetAddress().getHostAddress(), upstream.getLocalPort())) {
                    for (int i = 0; i < CLIENTS; i++) {
                        clients.add(new Socket(InetAddress.getLoopbackAddress(), proxy.port()));
                    }
                    proxy.refuse();
                    for (Socket client : clients) {
                        assertThat(closedByTheProxy(client))
                                .as("round %d: a connection made before refuse() still open after it", round)
                                .isTrue();
                    }
                } finally {
                    for (Socket client : clients) {
                        client.close();
                    }
                }
            }
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    /** Whether the proxy closed (or reset) the connection, rather than leaving it open and silent. */
    private static boolean closedByTheProxy(Socket client) throws IOException {
        client.setSoTimeout(2_000);
        try {
            return client.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }
}
