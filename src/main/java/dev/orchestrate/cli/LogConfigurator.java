package dev.orchestrate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logback configured in code (found through META-INF/services) rather than from logback.xml: no
 * XML parsing at start-up. Logs go to stderr only; stdout is for results. Default level WARN.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    // %safeMsg: control characters in a message (quoting an agent, say) are shown, not obeyed.
    java.util.Map<String, String> rules = new java.util.HashMap<>();
    rules.put("safeMsg", SafeMessageConverter.class.getName());
    context.putObject(ch.qos.logback.core.CoreConstants.PATTERN_RULE_REGISTRY, rules);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0}: %safeMsg%n");
    encoder.start();

    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("stderr");
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();

    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(appender);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Sets the root level, e.g. from {@code -v} or {@code --log-level}. */
  static void setLevel(Level level) {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(level);
  }
}
