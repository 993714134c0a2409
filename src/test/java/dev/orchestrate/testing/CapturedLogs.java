package dev.orchestrate.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * For a test that expects a warning: the logger's events are captured for the test to assert
 * instead of printed next to BUILD SUCCESS. Register with
 * {@code @RegisterExtension final CapturedLogs logs = CapturedLogs.of(SomeClass.class);}. During
 * each test the logger's events go to a list (at the level it already has, else WARN: not the
 * root's, which an in-process CLI test run before, with --quiet, may have left at ERROR) and not to
 * the console appender of the root logger; afterwards everything is as it was.
 */
public final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {
  private final List<String> loggerNames;
  private final List<ListAppender<ILoggingEvent>> appenders = new java.util.ArrayList<>();
  private final List<Boolean> additivity = new java.util.ArrayList<>();
  private final List<Level> levels = new java.util.ArrayList<>();

  private CapturedLogs(List<String> loggerNames) {
    this.loggerNames = List.copyOf(loggerNames);
  }

  /** The loggers of these classes. */
  public static CapturedLogs of(Class<?>... sources) {
    return new CapturedLogs(java.util.Arrays.stream(sources).map(Class::getName).toList());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    for (String name : loggerNames) {
      Logger logger = (Logger) LoggerFactory.getLogger(name);
      ListAppender<ILoggingEvent> appender = new ListAppender<>();
      appender.setContext(logger.getLoggerContext());
      appender.start();
      logger.addAppender(appender);
      appenders.add(appender);
      additivity.add(logger.isAdditive());
      logger.setAdditive(false);
      levels.add(logger.getLevel());
      if (logger.getLevel() == null) {
        logger.setLevel(Level.WARN);
      }
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    for (int i = 0; i < loggerNames.size(); i++) {
      Logger logger = (Logger) LoggerFactory.getLogger(loggerNames.get(i));
      logger.detachAppender(appenders.get(i));
      logger.setAdditive(additivity.get(i));
      logger.setLevel(levels.get(i));
      appenders.get(i).stop();
    }
    appenders.clear();
    additivity.clear();
    levels.clear();
  }

  /** The formatted messages at WARN or above, in the order they were logged. */
  public List<String> warnings() {
    return messages(Level.WARN);
  }

  public List<String> messages(Level atLeast) {
    List<String> out = new java.util.ArrayList<>();
    for (ListAppender<ILoggingEvent> appender : appenders) {
      synchronized (appender) {
        for (ILoggingEvent e : List.copyOf(appender.list)) {
          if (e.getLevel().isGreaterOrEqual(atLeast)) {
            out.add(e.getFormattedMessage());
          }
        }
      }
    }
    return out;
  }
}
