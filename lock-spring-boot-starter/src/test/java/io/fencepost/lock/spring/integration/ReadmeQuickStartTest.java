package io.fencepost.lock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.jdbc.PostgresLockManager;
import io.fencepost.lock.jdbc.test.PostgresTestDatabase;
import io.fencepost.lock.spring.autoconfigure.LockAutoConfiguration;
import io.fencepost.lock.spring.autoconfigure.LockProperties;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.yaml.snakeyaml.Yaml;

/**
 * The README's Spring Boot quick start, taken as a user would: the Java code compiles on its own, the YAML names
 * real properties, and the service, run in an application context on PostgreSQL, waits for a lock held elsewhere.
 * The configuration table of docs/configuration.md documents the real properties and defaults.
 */
class ReadmeQuickStartTest {

    private static final Pattern CODE_BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

    @RegisterExtension
    static PostgresTestDatabase db = new PostgresTestDatabase();

    private static String readme;

    private static String configurationPage;

    private static String springQuickStart;

    @BeforeAll
    static void readReadme() throws IOException {
        Path path = Path.of("").toAbsolutePath();
        while (path != null && !isProjectReadme(path.resolve("README.md"))) {
            path = path.getParent();
        }
        assertThat(path).as("the project README.md above the working directory").isNotNull();
        readme = Files.readString(path.resolve("README.md"), StandardCharsets.UTF_8);
        configurationPage = Files.readString(path.resolve("docs").resolve("configuration.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("## Quick start (Spring Boot)");
        int end = readme.indexOf("<!-- quickstart:end -->");
        assertThat(start).as("the Spring Boot quick start section").isPositive().isLessThan(end);
        assertThat(readme.indexOf("<!-- quickstart:start -->")).isLessThan(start);
        springQuickStart = readme.substring(start, end);
    }

    private static boolean isProjectReadme(Path file) throws IOException {
        return Files.isRegularFile(file) && Files.readString(file).contains("<!-- quickstart:start -->");
    }

    @Test
    void theMavenSnippetNamesTheStarterAtTheProjectsVersion() throws IOException {
        String xml = codeBlocks("xml").get(0);
        assertThat(xml)
                .contains("<groupId>io.fencepost</groupId>")
                .contains("<artifactId>lock-spring-boot-starter</artifactId>")
                .contains("<version>" + projectVersion() + "</version>");
    }

    @Test
    void theYamlSnippetUsesRealPropertiesWithValidValues() throws Exception {
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten("", new Yaml().load(codeBlocks("yaml").get(0)), flat);
        Map<String, ConfigurationMetadataProperty> metadata = metadata();
        flat.keySet().stream()
                .filter(key -> key.startsWith("fencepost."))
                .forEach(key -> assertThat(metadata).as("documented property").containsKey(key));
        assertThat(flat).containsKey("spring.datasource.url");
        LockProperties bound = new Binder(new MapConfigurationPropertySource(flat))
                .bind("fencepost", Bindable.of(LockProperties.class))
                .get();
        assertThat(bound.getLeaseTime()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theConfigurationTableDocumentsEveryPropertyWithItsDefault() throws Exception {
        int start = configurationPage.indexOf("<!-- configuration:start -->");
        int end = configurationPage.indexOf("<!-- configuration:end -->");
        assertThat(start)
                .as("the configuration table in docs/configuration.md")
                .isNotNegative()
                .isLessThan(end);
        Matcher rows = Pattern.compile("^\\| `(fencepost\\.[a-z.-]+)` \\| `([^`]*)` \\|", Pattern.MULTILINE)
                .matcher(configurationPage.substring(start, end));
        Map<String, String> documented = new LinkedHashMap<>();
        while (rows.find()) {
            documented.put(rows.group(1), rows.group(2));
        }
        Map<String, ConfigurationMetadataProperty> metadata = metadata();
        assertThat(documented).containsOnlyKeys(metadata.keySet());
        metadata.forEach((id, property) -> {
            if (property.getDefaultValue() != null) {
                assertThat(documented.get(id))
                        .as("docs/configuration.md default of %s", id)
                        // enum defaults are written as they are configured, in lower case
                        .isEqualToIgnoringCase(String.valueOf(property.getDefaultValue()));
            }
        });
    }

    @Test
    void theServiceCompilesAndWaitsForALockHeldElsewhere(@TempDir Path work) throws Exception {
        List<String> sources = codeBlocks("java");
        assertThat(sources).isNotEmpty();
        Path classes = compile(sources, work);
        db.execute("CREATE TABLE IF NOT EXISTS invoice (id bigint PRIMARY KEY, status text NOT NULL,"
                + " fence bigint NOT NULL DEFAULT 0, reminded_at timestamptz);"
                + " INSERT INTO invoice (id, status) VALUES (42, 'OPEN') ON CONFLICT DO NOTHING");

        try (URLClassLoader loader = new URLClassLoader(
                        new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
                PostgresLockManager elsewhere = PostgresLockManager.create(db.dataSource())) {
            Class<?> serviceType = loader.loadClass("com.example.billing.InvoiceService");
            Method settle = serviceType.getMethod("settle", long.class);
            new ApplicationContextRunner()
                    .withClassLoader(loader)
                    .withConfiguration(AutoConfigurations.of(
                            DataSourceAutoConfiguration.class,
                            DataSourceTransactionManagerAutoConfiguration.class,
                            TransactionAutoConfiguration.class,
                            JdbcTemplateAutoConfiguration.class,
                            JdbcClientAutoConfiguration.class,
                            LockAutoConfiguration.class))
                    .withPropertyValues("spring.datasource.url=" + db.jdbcUrl())
                    .withInitializer(context -> ((GenericApplicationContext) context).registerBean(serviceType))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Object service = context.getBean(serviceType);
                        ExecutorService caller = Executors.newSingleThreadExecutor();
                        try (Lease held = elsewhere.acquire("invoice:42", LockOptions.of(Duration.ofMinutes(1)))) {
                            AtomicReference<Thread> thread = new AtomicReference<>();
                            CompletableFuture<Object> settled = CompletableFuture.supplyAsync(
                                    () -> {
                                        thread.set(Thread.currentThread());
                                        return invoke(settle, service, 42L);
                                    },
                                    caller);
                            await().atMost(Duration.ofSeconds(4)).until(() -> waitsForALock(thread.get()));
                            assertThat(settled).isNotDone();
                            held.release();
                            assertThat(settled.get(10, TimeUnit.SECONDS)).isEqualTo(true);
                            Long fence = new JdbcTemplate(db.dataSource())
                                    .queryForObject("SELECT fence FROM invoice WHERE id = 42", Long.class);
                            assertThat(fence).isGreaterThan(held.fencingToken());
                        } finally {
                            caller.shutdownNow();
                        }
                    });
        }
    }

    private static Object invoke(Method method, Object target, Object... args) {
        try {
            return method.invoke(target, args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean waitsForALock(Thread thread) {
        if (thread == null) {
            return false;
        }
        boolean inLockManager = false;
        for (StackTraceElement frame : thread.getStackTrace()) {
            inLockManager |= frame.getClassName().startsWith("io.fencepost.lock.core.");
        }
        return inLockManager
                && (thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
    }

    private static List<String> codeBlocks(String language) {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = CODE_BLOCK.matcher(springQuickStart);
        while (matcher.find()) {
            if (matcher.group(1).equals(language)) {
                blocks.add(matcher.group(2));
            }
        }
        assertThat(blocks)
                .as("```%s blocks in the Spring Boot quick start", language)
                .isNotEmpty();
        return blocks;
    }

    /** Compiles the snippets as the files a user would paste them into, against the test classpath. */
    private static Path compile(List<String> sources, Path work) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path sourceRoot = Files.createDirectories(work.resolve("src"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<Path> files = new ArrayList<>();
        Pattern packageName = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
        Pattern typeName =
                Pattern.compile("^public (?:final )?(?:class|interface|record|enum) (\\w+)", Pattern.MULTILINE);
        for (String source : sources) {
            Matcher pkg = packageName.matcher(source);
            Matcher type = typeName.matcher(source);
            assertThat(pkg.find()).as("a package declaration in\n%s", source).isTrue();
            assertThat(type.find()).as("a public type in\n%s", source).isTrue();
            Path file = sourceRoot.resolve(pkg.group(1).replace('.', '/')).resolve(type.group(1) + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            files.add(file);
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = compiler.getStandardFileManager(diagnostics, null, null)) {
            boolean compiled = compiler.getTask(
                            null,
                            fileManager,
                            diagnostics,
                            List.of(
                                    "--release",
                                    "17",
                                    "-parameters",
                                    "-proc:none",
                                    "-classpath",
                                    testClasspath(),
                                    "-d",
                                    classes.toString()),
                            null,
                            fileManager.getJavaFileObjectsFromPaths(files))
                    .call();
            assertThat(compiled)
                    .as("README code compiles: %s", diagnostics.getDiagnostics())
                    .isTrue();
        }
        return classes;
    }

    /** The test classpath, with a manifest-only launcher jar (as Surefire uses) expanded. */
    private static String testClasspath() throws IOException {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            entries.add(entry);
            if (entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry))) {
                try (JarFile jar = new JarFile(entry)) {
                    Manifest manifest = jar.getManifest();
                    String classPath = manifest == null
                            ? null
                            : manifest.getMainAttributes().getValue("Class-Path");
                    if (classPath != null) {
                        URL base = Path.of(entry).toUri().toURL();
                        for (String element : classPath.trim().split("\\s+")) {
                            entries.add(Path.of(URI.create(new URL(base, element).toString()))
                                    .toString());
                        }
                    }
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void flatten(String prefix, Object value, Map<String, Object> into) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, child) -> flatten(prefix.isEmpty() ? key.toString() : prefix + "." + key, child, into));
        } else {
            into.put(prefix, value);
        }
    }

    private static Map<String, ConfigurationMetadataProperty> metadata() throws Exception {
        Path classes = Path.of(LockProperties.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("META-INF/spring-configuration-metadata.json"))) {
            Map<String, ConfigurationMetadataProperty> all =
                    new LinkedHashMap<>(ConfigurationMetadataRepositoryJsonBuilder.create(in)
                            .build()
                            .getAllProperties());
            // The processor documents the locks endpoint's management.endpoint.locks.* too: Boot's, not ours.
            all.keySet().removeIf(id -> !id.startsWith("fencepost."));
            return all;
        }
    }

    /** The version of fencepost-parent, as the module's own pom (or the root pom) names it. */
    private static String projectVersion() throws IOException {
        Matcher version = Pattern.compile("<artifactId>fencepost-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(version.find()).as("fencepost-parent's version in pom.xml").isTrue();
        return version.group(1);
    }
}
