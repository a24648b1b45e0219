package io.fencepost.lock.jdbc.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy on loopback between a client and PostgreSQL that a test can stall (bytes are held back, as in a
 * network partition) or cut (every connection is closed). No toxiproxy server is packaged here, so it lives in
 * the tests.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final InetSocketAddress target;

    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "tcp-proxy");
        thread.setDaemon(true);
        return thread;
    });

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private final Object gate = new Object();

    private volatile boolean stalled;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.target = new InetSocketAddress(targetHost, targetPort);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Holds back every byte in both directions until {@link #resume()}. */
    public void stall() {
        stalled = true;
    }

    public void resume() {
        synchronized (gate) {
            stalled = false;
            gate.notifyAll();
        }
    }

    /** Closes every open connection through the proxy; new ones are still accepted. */
    public void cut() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(target, 5_000);
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream));
                threads.execute(() -> pump(upstream, client));
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitNotStalled();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // connection cut or closed: close the other side too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitNotStalled() throws InterruptedException {
        synchronized (gate) {
            while (stalled) {
                gate.wait();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        resume();
        server.close();
        cut();
        threads.shutdownNow();
    }
}
