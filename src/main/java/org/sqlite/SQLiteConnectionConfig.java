package org.sqlite;

import java.sql.Connection;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;
import org.sqlite.date.FastDateFormat;

/**
 * orchestrate's replacement for sqlite-jdbc's class of the same name, which the build leaves out of
 * the shaded jar (pom.xml). It has the same members and behaviour but one: the date format is built
 * when a date is first read or written through JDBC, not when a connection is opened.
 *
 * <p>Why: sqlite-jdbc builds a {@link FastDateFormat} for the default time zone and locale for every
 * connection (a {@code new SQLiteConfig()} alone does it), and the first one loads the JDK's CLDR
 * calendar and locale data and the time-zone database: 25–30 ms of a short command's 120–160 ms
 * (docs/benchmarks.md, issue 19). orchestrate stores instants as epoch milliseconds and never reads
 * or writes a {@code java.sql.Date}, {@code Time} or {@code Timestamp}, so it never needs the format.
 *
 * <p>Written from the public and package-private members of sqlite-jdbc 3.54.1.0's class (the
 * version in pom.xml). {@code SQLiteConnectionConfigTest} compares those members with the library's
 * own class, so an upgrade that changes them fails the build until this class is brought in line.
 */
public class SQLiteConnectionConfig implements Cloneable {
  private SQLiteConfig.DateClass dateClass = SQLiteConfig.DateClass.INTEGER;
  private SQLiteConfig.DatePrecision datePrecision = SQLiteConfig.DatePrecision.MILLISECONDS;
  private String dateStringFormat = SQLiteConfig.DEFAULT_DATE_STRING_FORMAT;
  /** Built from {@link #dateStringFormat} on first use; null until then. */
  private FastDateFormat dateFormat;
  private int transactionIsolation = Connection.TRANSACTION_SERIALIZABLE;
  private SQLiteConfig.TransactionMode transactionMode = SQLiteConfig.TransactionMode.DEFERRED;
  private boolean autoCommit = true;
  private boolean getGeneratedKeys = true;

  private static final Map<SQLiteConfig.TransactionMode, String> beginCommandMap = new EnumMap<>(
      SQLiteConfig.TransactionMode.class);

  static {
    beginCommandMap.put(SQLiteConfig.TransactionMode.DEFERRED, "begin;");
    beginCommandMap.put(SQLiteConfig.TransactionMode.IMMEDIATE, "begin immediate;");
    beginCommandMap.put(SQLiteConfig.TransactionMode.EXCLUSIVE, "begin exclusive;");
  }

  public static SQLiteConnectionConfig fromPragmaTable(Properties pragmaTable) {
    return new SQLiteConnectionConfig(
        SQLiteConfig.DateClass.getDateClass(pragmaTable.getProperty(
            SQLiteConfig.Pragma.DATE_CLASS.pragmaName, SQLiteConfig.DateClass.INTEGER.name())),
        SQLiteConfig.DatePrecision.getPrecision(pragmaTable.getProperty(
            SQLiteConfig.Pragma.DATE_PRECISION.pragmaName, SQLiteConfig.DatePrecision.MILLISECONDS.name())),
        pragmaTable.getProperty(SQLiteConfig.Pragma.DATE_STRING_FORMAT.pragmaName,
            SQLiteConfig.DEFAULT_DATE_STRING_FORMAT),
        Connection.TRANSACTION_SERIALIZABLE,
        SQLiteConfig.TransactionMode.getMode(pragmaTable.getProperty(
            SQLiteConfig.Pragma.TRANSACTION_MODE.pragmaName, SQLiteConfig.TransactionMode.DEFERRED.name())),
        true,
        Boolean.parseBoolean(pragmaTable.getProperty(SQLiteConfig.Pragma.JDBC_GET_GENERATED_KEYS.pragmaName, "true")));
  }

  public SQLiteConnectionConfig(SQLiteConfig.DateClass dateClass, SQLiteConfig.DatePrecision datePrecision,
      String dateStringFormat, int transactionIsolation, SQLiteConfig.TransactionMode transactionMode,
      boolean autoCommit, boolean getGeneratedKeys) {
    setDateClass(dateClass);
    setDatePrecision(datePrecision);
    setDateStringFormat(dateStringFormat);
    setTransactionIsolation(transactionIsolation);
    setTransactionMode(transactionMode);
    setAutoCommit(autoCommit);
    setGetGeneratedKeys(getGeneratedKeys);
  }

  public SQLiteConnectionConfig copyConfig() {
    return new SQLiteConnectionConfig(dateClass, datePrecision, dateStringFormat, transactionIsolation,
        transactionMode, autoCommit, getGeneratedKeys);
  }

  public long getDateMultiplier() {
    return datePrecision == SQLiteConfig.DatePrecision.MILLISECONDS ? 1L : 1000L;
  }

  public SQLiteConfig.DateClass getDateClass() {
    return dateClass;
  }

  public void setDateClass(SQLiteConfig.DateClass dateClass) {
    this.dateClass = dateClass;
  }

  public SQLiteConfig.DatePrecision getDatePrecision() {
    return datePrecision;
  }

  public void setDatePrecision(SQLiteConfig.DatePrecision datePrecision) {
    this.datePrecision = datePrecision;
  }

  public String getDateStringFormat() {
    return dateStringFormat;
  }

  /** Sets the pattern; the format itself is built by {@link #getDateFormat()} when first needed. */
  public void setDateStringFormat(String dateStringFormat) {
    this.dateStringFormat = dateStringFormat;
    this.dateFormat = null;
  }

  /**
   * The format for {@link #getDateStringFormat()}, built on first call. FastDateFormat caches its
   * instances, so two threads racing here get the same one.
   */
  public FastDateFormat getDateFormat() {
    FastDateFormat format = dateFormat;
    if (format == null) {
      format = FastDateFormat.getInstance(dateStringFormat);
      dateFormat = format;
    }
    return format;
  }

  public boolean isAutoCommit() {
    return autoCommit;
  }

  public void setAutoCommit(boolean autoCommit) {
    this.autoCommit = autoCommit;
  }

  public int getTransactionIsolation() {
    return transactionIsolation;
  }

  public void setTransactionIsolation(int transactionIsolation) {
    this.transactionIsolation = transactionIsolation;
  }

  public SQLiteConfig.TransactionMode getTransactionMode() {
    return transactionMode;
  }

  public void setTransactionMode(SQLiteConfig.TransactionMode transactionMode) {
    this.transactionMode = transactionMode;
  }

  public boolean isGetGeneratedKeys() {
    return getGeneratedKeys;
  }

  public void setGetGeneratedKeys(boolean getGeneratedKeys) {
    this.getGeneratedKeys = getGeneratedKeys;
  }

  String transactionPrefix() {
    return beginCommandMap.get(transactionMode);
  }
}
