import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** Runs one SQL statement on an admin JDBC URL (for .ci/check-consumer; the consumer's class path brings the driver). */
public class ConsumerDatabase {

    public static void main(String[] args) throws Exception {
        try (Connection connection = DriverManager.getConnection(args[0]);
                Statement statement = connection.createStatement()) {
            statement.execute(args[1]);
        }
    }
}
