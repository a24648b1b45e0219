package io.fencepost.lock.benchmarks.wire;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * A socket factory for the PostgreSQL JDBC driver ({@code socketFactory=} connection property) that counts, from the
 * client's side of the socket, the statements it sends (parsed from the protocol it writes) and its round trips:
 * every time it reads after having written, it waited for the server. Requests it pipelines without reading in
 * between (the driver sends {@code BEGIN} ahead of the first statement of a transaction) cost no round trip.
 */
public final class CountingSocketFactory extends SocketFactory {

    /** Where every connection made through this factory reports (the driver instantiates the factory itself). */
    public static final WireCounter COUNTER = new WireCounter();

    /** The JDBC URL parameter that routes a connection through this factory. */
    public static final String URL_PARAMETER = "socketFactory=" + CountingSocketFactory.class.getName();

    public CountingSocketFactory() {}

    @Override
    public Socket createSocket() {
        return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return createSocket(InetAddress.getByName(host), port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
        throw localBindingUnsupported();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw localBindingUnsupported();
    }

    private static UnsupportedOperationException localBindingUnsupported() {
        return new UnsupportedOperationException("binding a local address is not needed here");
    }

    private static final class CountingSocket extends Socket {

        private final PgFrontendCounter frontend = new PgFrontendCounter(COUNTER);

        /** Whether the client has written since it last read. */
        private volatile boolean wrote;

        private InputStream in;

        private OutputStream out;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        waited();
                        return super.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        waited();
                        return super.read(b, off, len);
                    }
                };
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                out = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        write(new byte[] {(byte) b}, 0, 1);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        wrote = true;
                        frontend.feed(b, off, len);
                        out().write(b, off, len);
                    }
                };
            }
            return out;
        }

        private OutputStream out() throws IOException {
            return super.getOutputStream();
        }

        private void waited() {
            if (wrote) {
                wrote = false;
                COUNTER.roundTrip();
            }
        }
    }
}
