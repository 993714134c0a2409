package dev.orchestrate.state.postgres;

import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.state.sql.SqlStateStore;
import java.net.InetAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The PostgreSQL backend: the state in one schema of a database named by a
 * {@code postgresql://} location ({@link PostgresLocation}), the job logs and worktrees of this
 * runner in a local {@link StateDirectory}. Its stores are the shared {@link SqlStateStore}
 * speaking {@link PostgresDialect}: writes of the whole state serialized by an advisory lock (one
 * at a time, as on SQLite), the row writes of claims and held items beside each other under its
 * shared form (the dialect says which are which, and why). Several runners share it: the run
 * lease is a runner's registration and heartbeat ({@link PostgresRunner}), and they claim items one
 * by one.
 *
 * <p>Connections: auto-commit, {@code ApplicationName=orchestrate}, a connect timeout of
 * {@value #CONNECT_TIMEOUT_S} s, TCP keepalive, the schema as the {@code search_path}, and
 * {@code lock_timeout} as the busy timeout of {@code BusyWait}. The password is never in the
 * location: {@code PGPASSWORD} or a password file ({@link PgPass}). Read-only stores run every
 * transaction read-only and never migrate; a schema that is not there reads as no state.
 */
public final class PostgresBackend implements StateBackend {
  /** How old a runner's heartbeat may get before other runners take it for dead. */
  public static final java.time.Duration DEFAULT_LEASE_TIMEOUT = java.time.Duration.ofSeconds(30);
  /** Seconds a connection attempt may take before it fails as the server out of reach. */
  static final int CONNECT_TIMEOUT_S = 10;
  static final String APPLICATION_NAME = "orchestrate";
  /** PostgreSQL keeps the first 63 bytes of an application name. */
  private static final int APPLICATION_NAME_MAX = 63;

  private final String given;
  private final PostgresLocation location;
  private final String problem;
  private final StateDirectory directory;
  private final Map<String, String> env;
  private final Path home;
  private final Consumer<String> warnings;
  private Optional<String> password;

  /**
   * The backend of {@code location} ({@code postgresql://…} or {@code postgres://…}), keeping job
   * logs and worktrees in {@code local}. A location that cannot be used (a password in it, a
   * malformed part) is no exception here: {@link #problem()} says why, and every other method
   * refuses with that line.
   */
  public PostgresBackend(String location, StateDirectory local) {
    this(location, local, System.getenv(), Path.of(System.getProperty("user.home")),
        line -> System.err.println("orchestrate: warning: " + line));
  }

  /** With the environment and home directory given: where the defaults and the password come from. */
  PostgresBackend(String location, StateDirectory local, Map<String, String> env, Path home,
      Consumer<String> warnings) {
    this.directory = local;
    this.env = Map.copyOf(env);
    this.home = home;
    this.warnings = warnings;
    PostgresLocation parsed = null;
    String why = null;
    try {
      parsed = PostgresLocation.parse(location, this.env);
    } catch (PostgresLocation.InvalidLocation e) {
      why = e.getMessage();
    }
    this.given = PostgresLocation.masked(location);
    this.location = parsed;
    this.problem = why;
  }

  @Override
  public StateDirectory directory() {
    return directory;
  }

  @Override
  public String toString() {
    return location != null ? location.display() : given;
  }

  @Override
  public Optional<String> problem() {
    if (problem != null) {
      return Optional.of(problem);
    }
    return directory.problem();
  }

  /** A new connection of this process to the usable location, with its dialect. */
  private Jdbc jdbc() {
    return new Jdbc(connect(APPLICATION_NAME), new PostgresDialect(usable()));
  }

  /** Whether the schema is there and migrated at least once. */
  @Override
  public boolean exists() {
    try (Jdbc jdbc = jdbc()) {
      return PostgresSchema.version(jdbc, location.schema()) > 0;
    }
  }

  @Override
  public StateStore open(StateStore.Mode mode) {
    PostgresLocation at = usable();
    Jdbc jdbc = new Jdbc(connect(APPLICATION_NAME), new PostgresDialect(at));
    try {
      switch (mode) {
        case READ_ONLY -> {
          set(jdbc, "SET default_transaction_read_only = on");
          PostgresSchema.refuseNewer(jdbc, at);
        }
        case READ_WRITE -> PostgresSchema.migrate(jdbc, at, System.currentTimeMillis());
        case MAINTENANCE -> {
          PostgresSchema.migrate(jdbc, at, System.currentTimeMillis());
          // bulk deletes and the index rebuilds of a large compaction
          set(jdbc, "SET work_mem = '64MB'");
          set(jdbc, "SET maintenance_work_mem = '256MB'");
        }
        default -> throw new IllegalArgumentException(String.valueOf(mode));
      }
    } catch (RuntimeException e) {
      jdbc.close();
      throw e;
    }
    return SqlStateStore.open(jdbc, directory.root(), directory.jobs());
  }

  /** Registers this runner with the default lease timeout. */
  @Override
  public RunLease acquireLease(Instant now) {
    return acquireLease(now, DEFAULT_LEASE_TIMEOUT);
  }

  /**
   * Registers this runner (never refused: runners share the state) and starts its heartbeat; its
   * job logs are in this backend's local directory.
   */
  @Override
  public RunLease acquireLease(Instant now, java.time.Duration leaseTimeout) {
    PostgresLocation at = usable();
    open(StateStore.Mode.READ_WRITE).close(); // the runners table is part of the schema
    if (directory.jobsInside()) {
      try {
        directory.create(); // this runner's job logs and worktrees, git-ignored like a SQLite state
      } catch (java.io.IOException e) {
        throw new StoreException("cannot create " + directory.root() + ": " + e.getMessage(), e);
      }
    }
    String host = hostName();
    return PostgresRunner.start(host, directory.jobs(), leaseTimeout,
        () -> connect("orchestrate run: pid " + ProcessHandle.current().pid() + " on " + host), at.schema());
  }

  /** Whether a runner is registered (running, or dead and not yet taken over). */
  @Override
  public boolean leaseHeld() {
    try (Jdbc jdbc = jdbc()) {
      return PostgresSchema.version(jdbc, location.schema()) > 0
          && jdbc.queryLong("SELECT count(*) FROM (SELECT 1 FROM runners LIMIT 1) r") > 0;
    }
  }

  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public long bytes() {
    try (Jdbc jdbc = jdbc()) {
      return PostgresSchema.bytes(jdbc, location.schema());
    }
  }

  private PostgresLocation usable() {
    if (problem != null) {
      throw new StoreException(problem);
    }
    return location;
  }

  /** A new connection to the state's database, set up as the class says. */
  private Connection connect(String applicationName) {
    PostgresLocation at = usable();
    Properties props = new Properties();
    props.setProperty("user", at.user());
    password().ifPresent(p -> props.setProperty("password", p));
    props.setProperty("ApplicationName", applicationName.length() > APPLICATION_NAME_MAX
        ? applicationName.substring(0, APPLICATION_NAME_MAX) : applicationName);
    props.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_S));
    props.setProperty("tcpKeepAlive", "true");
    if (at.sslMode() != null) {
      props.setProperty("sslmode", at.sslMode());
    }
    Connection connection;
    try {
      // The driver itself rather than DriverManager: nothing depends on which drivers the class path registers.
      connection = new org.postgresql.Driver().connect(at.jdbcUrl(), props);
    } catch (SQLException e) {
      throw PostgresDialect.connectFailure(at, e);
    }
    if (connection == null) {
      throw new StoreException("cannot open the " + PostgresDialect.description(at) + ": the driver does not take "
          + at.jdbcUrl());
    }
    try (Statement st = connection.createStatement()) {
      st.execute("SET search_path TO \"" + at.schema() + "\"");
      st.execute("SET lock_timeout = " + BusyWait.standard().sliceMs());
      return connection;
    } catch (SQLException e) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // failing anyway
      }
      throw PostgresDialect.connectFailure(at, e);
    }
  }

  private synchronized Optional<String> password() {
    if (password == null) {
      password = PgPass.password(location, env, home, warnings);
    }
    return password;
  }

  private static void set(Jdbc jdbc, String sql) {
    try (Statement st = jdbc.connection().createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw jdbc.failure(sql, e);
    }
  }

  private String hostName() {
    String named = env.get("HOSTNAME");
    if (named != null && !named.isEmpty()) {
      return named;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "an unknown host";
    }
  }
}
