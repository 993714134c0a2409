package dev.orchestrate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LogbackServiceProvider;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.DirectBinding;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J binding of the orchestrate process: logback, started on the first event that passes
 * the level rather than on the first logger lookup. sqlite-jdbc looks an SLF4J logger up whenever
 * SLF4J is on the class path, that is on every command that opens the state, and starting logback
 * (its context, our {@link LogConfigurator}, its status manager) cost a short command about
 * 25-35 ms of CPU when, at the default level, nothing is ever logged (docs/benchmarks.md, issue 19).
 *
 * <p>Until then a logger answers {@code isXEnabled} from the root level alone (the only level
 * orchestrate sets: {@link LogConfigurator#setLevel}); from then on every call goes to the logback
 * logger of the same name, with the same configuration as when logback is bound directly. MDC
 * values are kept here, not in logback's MDC (orchestrate's pattern prints none).
 *
 * <p>Chosen by {@link #select()} in {@code Main} (and the archive's training), bound directly
 * ({@link DirectBinding}) unless the {@code slf4j.provider} property names a provider; tests and
 * embedders that do not select it get logback as discovered, unchanged.
 */
public final class DeferredLogback implements SLF4JServiceProvider {
  private final Factory factory = new Factory();
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new BasicMDCAdapter();

  /**
   * Binds this provider to SLF4J, unless the {@code slf4j.provider} property names one or SLF4J
   * is bound already: directly, not through that property, whose lookup costs every command a
   * {@code String.format} (see {@link DirectBinding}).
   */
  public static void select() {
    if (System.getProperty("slf4j.provider") == null) {
      DirectBinding.bind(new DeferredLogback());
    }
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return factory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    // Nothing until something is logged.
  }

  /** The loggers, the root level, and logback once started. */
  static final class Factory implements ILoggerFactory {
    private final ConcurrentMap<String, Deferred> loggers = new ConcurrentHashMap<>();
    private volatile Level level = Level.WARN;
    private volatile LoggerContext logback;

    @Override
    public Logger getLogger(String name) {
      return loggers.computeIfAbsent(name, n -> new Deferred(n, this));
    }

    /** Sets the root level, in logback too once it runs. */
    synchronized void setLevel(Level newLevel) {
      level = newLevel;
      if (logback != null) {
        logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(newLevel);
      }
    }

    /** Whether logback runs: something was logged. */
    boolean started() {
      return logback != null;
    }

    boolean enabled(org.slf4j.event.Level at) {
      return Level.fromLocationAwareLoggerInteger(at.toInt()).isGreaterOrEqual(level);
    }

    /** logback, configured as when SLF4J binds it directly (through our {@link LogConfigurator}). */
    LoggerContext logback() {
      LoggerContext context = logback;
      if (context == null) {
        synchronized (this) {
          if (logback == null) {
            LogbackServiceProvider provider = new LogbackServiceProvider();
            provider.initialize();
            LoggerContext started = (LoggerContext) provider.getLoggerFactory();
            started.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level);
            logback = started;
          }
          context = logback;
        }
      }
      return context;
    }
  }

  /** A logger that starts logback only for an event its level lets through. */
  static final class Deferred extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;
    private final transient Factory factory;

    Deferred(String name, Factory factory) {
      this.name = name;
      this.factory = factory;
    }

    @Override
    public boolean isTraceEnabled() {
      return factory.enabled(org.slf4j.event.Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
      return factory.enabled(org.slf4j.event.Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
      return factory.enabled(org.slf4j.event.Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
      return factory.enabled(org.slf4j.event.Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
      return factory.enabled(org.slf4j.event.Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return Deferred.class.getName();
    }

    @Override
    protected void handleNormalizedLoggingCall(org.slf4j.event.Level at, Marker marker, String message,
        Object[] arguments, Throwable throwable) {
      factory.logback().getLogger(name).log(marker, Deferred.class.getName(), at.toInt(), message, arguments,
          throwable);
    }
  }
}
