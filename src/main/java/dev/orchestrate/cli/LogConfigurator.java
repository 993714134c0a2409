package dev.orchestrate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logback configured in code (found through META-INF/services) rather than from logback.xml: no
 * XML parsing at start-up. Logs go to stderr only; stdout is for results. Default level WARN. In
 * the orchestrate process logback starts only when something is logged ({@link DeferredLogback}).
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    StderrAppender appender = new StderrAppender();
    appender.setContext(context);
    appender.setName("stderr");
    appender.start();

    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(appender);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /**
   * Writes to stderr through a pattern encoder built on the first event that passes the level:
   * sqlite-jdbc starts slf4j (and so logback) on every connection, and building the encoder costs
   * a short command about 20-30 ms of CPU when, at the default level, nothing is ever logged.
   */
  static final class StderrAppender extends AppenderBase<ILoggingEvent> {
    private ConsoleAppender<ILoggingEvent> console;

    @Override
    protected void append(ILoggingEvent event) {
      if (console == null) {
        // %safeMsg: control characters in a message (quoting an agent, say) are shown, not obeyed.
        java.util.Map<String, String> rules = new java.util.HashMap<>();
        rules.put("safeMsg", SafeMessageConverter.class.getName());
        getContext().putObject(ch.qos.logback.core.CoreConstants.PATTERN_RULE_REGISTRY, rules);
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(getContext());
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0}: %safeMsg%n");
        encoder.start();
        console = new ConsoleAppender<>();
        console.setContext(getContext());
        console.setName("stderr");
        console.setTarget("System.err");
        console.setEncoder(encoder);
        console.start();
      }
      console.doAppend(event);
    }

    @Override
    public void stop() {
      if (console != null) {
        console.stop();
      }
      super.stop();
    }
  }

  /** Sets the root level, e.g. from {@code -v} or {@code --log-level}; logback may not have started yet. */
  static void setLevel(Level level) {
    if (LoggerFactory.getILoggerFactory() instanceof DeferredLogback.Factory deferred) {
      deferred.setLevel(level);
    } else {
      ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(level);
    }
  }
}
