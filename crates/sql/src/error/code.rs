//! [`ErrorCode`]: every error and warning condition Betula reports, named after MariaDB's
//! `ER_*` symbol (`include/mysqld_error.h`), with its error number and SQLSTATE.
//!
//! Owns the one table (`error_codes!` below) from which [`ErrorCode::number`],
//! [`ErrorCode::sqlstate`] and [`ErrorCode::from_number`] are all derived.
//!
//! Invariants: numbers are unique; each SQLSTATE is MariaDB's for that number
//! (`sql/share/errmsg-utf8.txt`, HY000 where it names none). The few conditions MariaDB has no
//! number for carry MySQL's, and say so. Numbers and SQLSTATEs are read only where they leave
//! the engine: the wire packet, `SHOW WARNINGS` rows and printed messages.

/// Declares [`ErrorCode`] and its number / SQLSTATE lookups from one table.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $name:ident = $number:literal, $state:literal;)*) => {
        /// An error or warning condition, as MariaDB names it. The discriminant is the error
        /// number, so even an `as` cast gives what clients see.
        #[non_exhaustive]
        #[repr(u16)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $name = $number,)*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The error number clients see (MariaDB's, or MySQL's where noted).
            pub const fn number(self) -> u16 {
                self as u16
            }

            /// The five-character SQLSTATE that goes with [`ErrorCode::number`].
            pub const fn sqlstate(self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $state,)*
                }
            }

            /// The code with error number `n`, if Betula knows it.
            pub const fn from_number(n: u16) -> Option<ErrorCode> {
                match n {
                    $($number => Some(ErrorCode::$name),)*
                    _ => None,
                }
            }
        }
    };
}

error_codes! {
    /// `EE_FILENOTFOUND` (mysys): a file LOAD DATA names is missing or unreadable.
    EeFileNotFound = 29, "HY000";
    /// `ER_YES`: the note of EXPLAIN EXTENDED holding the query as the server reads it.
    Yes = 1003, "HY000";
    /// `ER_CANT_CREATE_TABLE`
    CantCreateTable = 1005, "HY000";
    /// `ER_DB_CREATE_EXISTS`
    DbCreateExists = 1007, "HY000";
    /// `ER_DB_DROP_EXISTS`
    DbDropExists = 1008, "HY000";
    /// `ER_DISK_FULL`
    DiskFull = 1021, "HY000";
    /// `ER_ERROR_ON_WRITE`
    ErrorOnWrite = 1026, "HY000";
    /// `ER_GET_ERRNO`: any other storage engine failure.
    GetErrno = 1030, "HY000";
    /// `ER_ILLEGAL_HA`: a table option the engine does not have.
    IllegalHa = 1031, "HY000";
    /// `ER_KEY_NOT_FOUND`
    KeyNotFound = 1032, "HY000";
    /// `ER_DBACCESS_DENIED_ERROR`
    DbaccessDeniedError = 1044, "42000";
    /// `ER_ACCESS_DENIED_ERROR`
    AccessDeniedError = 1045, "28000";
    /// `ER_NO_DB_ERROR`
    NoDbError = 1046, "3D000";
    /// `ER_BAD_NULL_ERROR`
    BadNullError = 1048, "23000";
    /// `ER_BAD_DB_ERROR`
    BadDbError = 1049, "42000";
    /// `ER_TABLE_EXISTS_ERROR`
    TableExistsError = 1050, "42S01";
    /// `ER_BAD_TABLE_ERROR`
    BadTableError = 1051, "42S02";
    /// `ER_NON_UNIQ_ERROR`
    NonUniqError = 1052, "23000";
    /// `ER_BAD_FIELD_ERROR`
    BadFieldError = 1054, "42S22";
    /// `ER_WRONG_FIELD_WITH_GROUP`
    WrongFieldWithGroup = 1055, "42000";
    /// `ER_DUP_FIELDNAME`
    DupFieldname = 1060, "42S21";
    /// `ER_DUP_KEYNAME`
    DupKeyname = 1061, "42000";
    /// `ER_DUP_ENTRY`
    DupEntry = 1062, "23000";
    /// `ER_WRONG_FIELD_SPEC`
    WrongFieldSpec = 1063, "42000";
    /// `ER_PARSE_ERROR`
    ParseError = 1064, "42000";
    /// `ER_EMPTY_QUERY`
    EmptyQuery = 1065, "42000";
    /// `ER_NONUNIQ_TABLE`
    NonuniqTable = 1066, "42000";
    /// `ER_INVALID_DEFAULT`
    InvalidDefault = 1067, "42000";
    /// `ER_MULTIPLE_PRI_KEY`
    MultiplePriKey = 1068, "42000";
    /// `ER_TOO_MANY_KEY_PARTS`
    TooManyKeyParts = 1070, "42000";
    /// `ER_TOO_LONG_KEY`
    TooLongKey = 1071, "42000";
    /// `ER_KEY_COLUMN_DOES_NOT_EXITS` (sic)
    KeyColumnDoesNotExits = 1072, "42000";
    /// `ER_TOO_BIG_FIELDLENGTH`
    TooBigFieldlength = 1074, "42000";
    /// `ER_WRONG_AUTO_KEY`
    WrongAutoKey = 1075, "42000";
    /// `ER_WRONG_FIELD_TERMINATORS`
    WrongFieldTerminators = 1083, "42000";
    /// `ER_WRONG_SUB_KEY`
    WrongSubKey = 1089, "HY000";
    /// `ER_CANT_REMOVE_ALL_FIELDS`
    CantRemoveAllFields = 1090, "42000";
    /// `ER_CANT_DROP_FIELD_OR_KEY`
    CantDropFieldOrKey = 1091, "42000";
    /// `ER_NO_SUCH_THREAD`
    NoSuchThread = 1094, "HY000";
    /// `ER_KILL_DENIED_ERROR`
    KillDeniedError = 1095, "HY000";
    /// `ER_NO_TABLES_USED`
    NoTablesUsed = 1096, "HY000";
    /// `ER_TOO_BIG_SET`
    TooBigSet = 1097, "HY000";
    /// `ER_TABLE_NOT_LOCKED_FOR_WRITE`
    TableNotLockedForWrite = 1099, "HY000";
    /// `ER_TABLE_NOT_LOCKED`
    TableNotLocked = 1100, "HY000";
    /// `ER_WRONG_TABLE_NAME`
    WrongTableName = 1103, "42000";
    /// `ER_UNKNOWN_ERROR`: anything without a better code.
    UnknownError = 1105, "HY000";
    /// `ER_UNKNOWN_TABLE`
    UnknownTable = 1109, "42S02";
    /// `ER_INVALID_GROUP_FUNC_USE`
    InvalidGroupFuncUse = 1111, "HY000";
    /// `ER_TABLE_MUST_HAVE_COLUMNS`
    TableMustHaveColumns = 1113, "42000";
    /// `ER_UNKNOWN_CHARACTER_SET`
    UnknownCharacterSet = 1115, "42000";
    /// `ER_PASSWORD_NO_MATCH` (28000 in MariaDB; MySQL says 42000)
    PasswordNoMatch = 1133, "28000";
    /// `ER_WRONG_VALUE_COUNT_ON_ROW`
    WrongValueCountOnRow = 1136, "21S01";
    /// `ER_INVALID_USE_OF_NULL`
    InvalidUseOfNull = 1138, "22004";
    /// `ER_REGEXP_ERROR`: a pattern that is invalid or that Betula cannot match as PCRE2 does.
    RegexpError = 1139, "42000";
    /// `ER_MIX_OF_GROUP_FUNC_AND_FIELDS`
    MixOfGroupFuncAndFields = 1140, "42000";
    /// `ER_NONEXISTING_GRANT`
    NonexistingGrant = 1141, "42000";
    /// `ER_NO_SUCH_TABLE`
    NoSuchTable = 1146, "42S02";
    /// `ER_NET_READ_ERROR`
    NetReadError = 1158, "08S01";
    /// `ER_NET_ERROR_ON_WRITE`: the client went away while a result was being sent.
    NetErrorOnWrite = 1160, "08S01";
    /// `ER_BLOB_KEY_WITHOUT_LENGTH`
    BlobKeyWithoutLength = 1170, "42000";
    /// `ER_PRIMARY_CANT_HAVE_NULL`
    PrimaryCantHaveNull = 1171, "42000";
    /// `ER_TOO_MANY_ROWS`
    TooManyRows = 1172, "42000";
    /// `ER_KEY_DOES_NOT_EXISTS`
    KeyDoesNotExists = 1176, "42000";
    /// `ER_FLUSH_MASTER_BINLOG_CLOSED`: RESET MASTER with the binary log off.
    FlushMasterBinlogClosed = 1186, "HY000";
    /// `ER_LOCK_OR_ACTIVE_TRANSACTION`
    LockOrActiveTransaction = 1192, "HY000";
    /// `ER_UNKNOWN_SYSTEM_VARIABLE`
    UnknownSystemVariable = 1193, "HY000";
    /// `ER_SLAVE_MUST_STOP`
    SlaveMustStop = 1198, "HY000";
    /// `ER_BAD_SLAVE`
    BadSlave = 1200, "HY000";
    /// `ER_LOCK_WAIT_TIMEOUT`
    LockWaitTimeout = 1205, "HY000";
    /// `ER_WRONG_ARGUMENTS`
    WrongArguments = 1210, "HY000";
    /// `ER_LOCK_DEADLOCK`
    LockDeadlock = 1213, "40001";
    /// `ER_CANNOT_ADD_FOREIGN`
    CannotAddForeign = 1215, "HY000";
    /// `ER_ERROR_WHEN_EXECUTING_COMMAND`
    ErrorWhenExecutingCommand = 1220, "HY000";
    /// `ER_WRONG_USAGE`
    WrongUsage = 1221, "HY000";
    /// `ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT`
    WrongNumberOfColumnsInSelect = 1222, "21000";
    /// `ER_CANT_UPDATE_WITH_READLOCK`
    CantUpdateWithReadlock = 1223, "HY000";
    /// `ER_SPECIFIC_ACCESS_DENIED_ERROR`
    SpecificAccessDeniedError = 1227, "42000";
    /// `ER_WRONG_VALUE_FOR_VAR`
    WrongValueForVar = 1231, "42000";
    /// `ER_WRONG_TYPE_FOR_VAR`
    WrongTypeForVar = 1232, "42000";
    /// `ER_NOT_SUPPORTED_YET`
    NotSupportedYet = 1235, "42000";
    /// `ER_MASTER_FATAL_ERROR_READING_BINLOG`: a dump thread cannot serve the replica's request.
    MasterFatalErrorReadingBinlog = 1236, "HY000";
    /// `ER_WRONG_FK_DEF`
    WrongFkDef = 1239, "42000";
    /// `ER_OPERAND_COLUMNS`
    OperandColumns = 1241, "21000";
    /// `ER_SUBQUERY_NO_1_ROW`
    SubqueryNo1Row = 1242, "21000";
    /// `ER_UNKNOWN_STMT_HANDLER`
    UnknownStmtHandler = 1243, "HY000";
    /// `ER_AUTO_CONVERT`
    AutoConvert = 1246, "HY000";
    /// `ER_ILLEGAL_REFERENCE`
    IllegalReference = 1247, "42S22";
    /// `ER_DERIVED_MUST_HAVE_ALIAS`
    DerivedMustHaveAlias = 1248, "42000";
    /// `ER_COLLATION_CHARSET_MISMATCH`
    CollationCharsetMismatch = 1253, "42000";
    /// `ER_TOO_BIG_FOR_UNCOMPRESS`
    TooBigForUncompress = 1256, "HY000";
    /// `ER_ZLIB_Z_DATA_ERROR`
    ZlibZDataError = 1259, "HY000";
    /// `ER_CUT_VALUE_GROUP_CONCAT`: a GROUP_CONCAT / JSON_ARRAYAGG result cut at
    /// group_concat_max_len.
    CutValueGroupConcat = 1260, "HY000";
    /// `ER_WARN_TOO_FEW_RECORDS`
    WarnTooFewRecords = 1261, "01000";
    /// `ER_WARN_TOO_MANY_RECORDS`
    WarnTooManyRecords = 1262, "01000";
    /// `ER_WARN_DATA_OUT_OF_RANGE`
    WarnDataOutOfRange = 1264, "22003";
    /// `WARN_DATA_TRUNCATED`
    WarnDataTruncated = 1265, "01000";
    /// `ER_CANT_AGGREGATE_2COLLATIONS`
    CantAggregate2collations = 1267, "HY000";
    /// `ER_UNKNOWN_COLLATION`
    UnknownCollation = 1273, "HY000";
    /// `ER_WRONG_NAME_FOR_INDEX`
    WrongNameForIndex = 1280, "42000";
    /// `ER_UNKNOWN_KEY_CACHE`
    UnknownKeyCache = 1284, "HY000";
    /// `ER_WARN_DEPRECATED_SYNTAX`
    WarnDeprecatedSyntax = 1287, "HY000";
    /// `ER_NON_UPDATABLE_TABLE`
    NonUpdatableTable = 1288, "HY000";
    /// `ER_OPTION_PREVENTS_STATEMENT`
    OptionPreventsStatement = 1290, "HY000";
    /// `ER_DUPLICATED_VALUE_IN_TYPE`
    DuplicatedValueInType = 1291, "HY000";
    /// `ER_TRUNCATED_WRONG_VALUE`
    TruncatedWrongValue = 1292, "22007";
    /// `ER_UNSUPPORTED_PS`
    UnsupportedPs = 1295, "HY000";
    /// `ER_UNKNOWN_TIME_ZONE`
    UnknownTimeZone = 1298, "HY000";
    /// `ER_WARN_INVALID_TIMESTAMP`
    WarnInvalidTimestamp = 1299, "HY000";
    /// `ER_CONFLICTING_DECLARATIONS`
    ConflictingDeclarations = 1302, "HY000";
    /// `ER_SP_NO_RECURSIVE_CREATE`
    SpNoRecursiveCreate = 1303, "2F003";
    /// `ER_SP_ALREADY_EXISTS`
    SpAlreadyExists = 1304, "42000";
    /// `ER_SP_DOES_NOT_EXIST`
    SpDoesNotExist = 1305, "42000";
    /// `ER_SP_LILABEL_MISMATCH`
    SpLilabelMismatch = 1308, "42000";
    /// `ER_SP_LABEL_REDEFINE`
    SpLabelRedefine = 1309, "42000";
    /// `ER_SP_LABEL_MISMATCH`
    SpLabelMismatch = 1310, "42000";
    /// `ER_SP_BADRETURN`
    SpBadreturn = 1313, "42000";
    /// `ER_QUERY_INTERRUPTED`
    QueryInterrupted = 1317, "70100";
    /// `ER_SP_WRONG_NO_OF_ARGS`
    SpWrongNoOfArgs = 1318, "42000";
    /// `ER_SP_NORETURN`
    SpNoreturn = 1320, "42000";
    /// `ER_SP_NORETURNEND`
    SpNoreturnend = 1321, "2F005";
    /// `ER_SP_UNDECLARED_VAR`
    SpUndeclaredVar = 1327, "42000";
    /// `ER_SP_FETCH_NO_DATA`
    SpFetchNoData = 1329, "02000";
    /// `ER_SP_DUP_VAR`
    SpDupVar = 1331, "42000";
    /// `ER_SP_CASE_NOT_FOUND`
    SpCaseNotFound = 1339, "20000";
    /// `ER_WRONG_OBJECT`
    WrongObject = 1347, "HY000";
    /// `ER_VIEW_SELECT_VARIABLE`
    ViewSelectVariable = 1351, "HY000";
    /// `ER_VIEW_SELECT_TMPTABLE`
    ViewSelectTmptable = 1352, "HY000";
    /// `ER_VIEW_WRONG_LIST`
    ViewWrongList = 1353, "HY000";
    /// `ER_VIEW_INVALID`
    ViewInvalid = 1356, "HY000";
    /// `ER_NO_DEFAULT_FOR_FIELD`
    NoDefaultForField = 1364, "HY000";
    /// `ER_DIVISION_BY_ZERO`
    DivisionByZero = 1365, "22012";
    /// `ER_TRUNCATED_WRONG_VALUE_FOR_FIELD` (22007 in MariaDB; MySQL says HY000)
    TruncatedWrongValueForField = 1366, "22007";
    /// `ER_ILLEGAL_VALUE_FOR_TYPE`
    IllegalValueForType = 1367, "22007";
    /// `ER_VIEW_CHECK_FAILED`
    ViewCheckFailed = 1369, "44000";
    /// `ER_PASSWD_LENGTH`: a stored password form of the wrong shape for its plugin.
    PasswdLength = 1372, "HY000";
    /// `ER_UNKNOWN_TARGET_BINLOG`: PURGE / SHOW BINLOG EVENTS names a file the log does not have.
    UnknownTargetBinlog = 1373, "HY000";
    /// `ER_NO_BINARY_LOGGING`: a binlog statement on a server without `log_bin`.
    NoBinaryLogging = 1381, "HY000";
    /// `ER_KEY_PART_0`
    KeyPart0 = 1391, "HY000";
    /// `ER_CANNOT_USER`
    CannotUser = 1396, "HY000";
    /// `ER_DATA_TOO_LONG`
    DataTooLong = 1406, "22001";
    /// `ER_CANT_CREATE_USER_WITH_GRANT`
    CantCreateUserWithGrant = 1410, "42000";
    /// `ER_TABLE_DEF_CHANGED`
    TableDefChanged = 1412, "HY000";
    /// `ER_SP_NOT_VAR_ARG`
    SpNotVarArg = 1414, "42000";
    /// `ER_SP_NO_RETSET`
    SpNoRetset = 1415, "0A000";
    /// `ER_SP_NO_RECURSION`
    SpNoRecursion = 1424, "HY000";
    /// `ER_TOO_BIG_SCALE`
    TooBigScale = 1425, "42000";
    /// `ER_TOO_BIG_PRECISION`
    TooBigPrecision = 1426, "42000";
    /// `ER_M_BIGGER_THAN_D`
    MBiggerThanD = 1427, "42000";
    /// `ER_STACK_OVERRUN_NEED_MORE`
    StackOverrunNeedMore = 1436, "HY000";
    /// `ER_TOO_BIG_DISPLAYWIDTH`
    TooBigDisplaywidth = 1439, "42000";
    /// `ER_FORBID_SCHEMA_CHANGE`
    ForbidSchemaChange = 1450, "HY000";
    /// `ER_ROW_IS_REFERENCED_2`
    RowIsReferenced2 = 1451, "23000";
    /// `ER_NO_REFERENCED_ROW_2`
    NoReferencedRow2 = 1452, "23000";
    /// `ER_SP_RECURSION_LIMIT`
    SpRecursionLimit = 1456, "HY000";
    /// `ER_VIEW_RECURSIVE`
    ViewRecursive = 1462, "HY000";
    /// `ER_NON_INSERTABLE_TABLE`
    NonInsertableTable = 1471, "HY000";
    /// `ER_FOREIGN_SERVER_EXISTS`
    ForeignServerExists = 1476, "HY000";
    /// `ER_FOREIGN_SERVER_DOESNT_EXIST`
    ForeignServerDoesntExist = 1477, "HY000";
    /// `ER_ILLEGAL_HA_CREATE_OPTION`
    IllegalHaCreateOption = 1478, "HY000";
    /// `ER_PARTITION_REQUIRES_VALUES_ERROR`
    PartitionRequiresValuesError = 1479, "HY000";
    /// `ER_PARTITION_WRONG_VALUES_ERROR`
    PartitionWrongValuesError = 1480, "HY000";
    /// `ER_PARTITION_MAXVALUE_ERROR`
    PartitionMaxvalueError = 1481, "HY000";
    /// `ER_WRONG_EXPR_IN_PARTITION_FUNC_ERROR`
    WrongExprInPartitionFuncError = 1486, "HY000";
    /// `ER_FIELD_NOT_FOUND_PART_ERROR`
    FieldNotFoundPartError = 1488, "HY000";
    /// `ER_PARTITION_FUNC_NOT_ALLOWED_ERROR`
    PartitionFuncNotAllowedError = 1491, "HY000";
    /// `ER_PARTITIONS_MUST_BE_DEFINED_ERROR`
    PartitionsMustBeDefinedError = 1492, "HY000";
    /// `ER_RANGE_NOT_INCREASING_ERROR`
    RangeNotIncreasingError = 1493, "HY000";
    /// `ER_MULTIPLE_DEF_CONST_IN_LIST_PART_ERROR`
    MultipleDefConstInListPartError = 1495, "HY000";
    /// `ER_TOO_MANY_PARTITIONS_ERROR`
    TooManyPartitionsError = 1499, "HY000";
    /// `ER_BLOB_FIELD_IN_PART_FUNC_ERROR`
    BlobFieldInPartFuncError = 1502, "HY000";
    /// `ER_UNIQUE_KEY_NEED_ALL_FIELDS_IN_PF`
    UniqueKeyNeedAllFieldsInPf = 1503, "HY000";
    /// `ER_NO_PARTS_ERROR`
    NoPartsError = 1504, "HY000";
    /// `ER_PARTITION_MGMT_ON_NONPARTITIONED`
    PartitionMgmtOnNonpartitioned = 1505, "HY000";
    /// `ER_FOREIGN_KEY_ON_PARTITIONED`
    ForeignKeyOnPartitioned = 1506, "HY000";
    /// `ER_PARTITION_DOES_NOT_EXIST`
    PartitionDoesNotExist = 1507, "HY000";
    /// `ER_DROP_LAST_PARTITION`
    DropLastPartition = 1508, "HY000";
    /// `ER_COALESCE_ONLY_ON_HASH_PARTITION`
    CoalesceOnlyOnHashPartition = 1509, "HY000";
    /// `ER_REORG_HASH_ONLY_ON_SAME_NO`
    ReorgHashOnlyOnSameNo = 1510, "HY000";
    /// `ER_REORG_NO_PARAM_ERROR`
    ReorgNoParamError = 1511, "HY000";
    /// `ER_ONLY_ON_RANGE_LIST_PARTITION`
    OnlyOnRangeListPartition = 1512, "HY000";
    /// `ER_ADD_PARTITION_NO_NEW_PARTITION`
    AddPartitionNoNewPartition = 1514, "HY000";
    /// `ER_COALESCE_PARTITION_NO_PARTITION`
    CoalescePartitionNoPartition = 1515, "HY000";
    /// `ER_REORG_PARTITION_NOT_EXIST`
    ReorgPartitionNotExist = 1516, "HY000";
    /// `ER_SAME_NAME_PARTITION`
    SameNamePartition = 1517, "HY000";
    /// `ER_CONSECUTIVE_REORG_PARTITIONS`
    ConsecutiveReorgPartitions = 1519, "HY000";
    /// `ER_REORG_OUTSIDE_RANGE`
    ReorgOutsideRange = 1520, "HY000";
    /// `ER_PLUGIN_IS_NOT_LOADED`: an authentication plugin Betula does not have.
    PluginIsNotLoaded = 1524, "HY000";
    /// `ER_NO_PARTITION_FOR_GIVEN_VALUE`
    NoPartitionForGivenValue = 1526, "HY000";
    /// `ER_DROP_INDEX_FK`
    DropIndexFk = 1553, "HY000";
    /// `ER_PARTITION_NO_TEMPORARY`
    PartitionNoTemporary = 1562, "HY000";
    /// `ER_PARTITION_FUNCTION_IS_NOT_ALLOWED`
    PartitionFunctionIsNotAllowed = 1564, "HY000";
    /// `ER_NULL_IN_VALUES_LESS_THAN`
    NullInValuesLessThan = 1566, "HY000";
    /// `ER_WRONG_PARTITION_NAME`
    WrongPartitionName = 1567, "HY000";
    /// `ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT`
    WrongParamcountToNativeFct = 1582, "42000";
    /// `ER_SAME_NAME_PARTITION_FIELD`
    SameNamePartitionField = 1652, "HY000";
    /// `ER_PARTITION_COLUMN_LIST_ERROR`
    PartitionColumnListError = 1653, "HY000";
    /// `ER_WRONG_TYPE_COLUMN_VALUE_ERROR`
    WrongTypeColumnValueError = 1654, "HY000";
    /// `ER_TOO_MANY_PARTITION_FUNC_FIELDS_ERROR`
    TooManyPartitionFuncFieldsError = 1655, "HY000";
    /// `ER_MAXVALUE_IN_VALUES_IN`
    MaxvalueInValuesIn = 1656, "HY000";
    /// `ER_TOO_MANY_VALUES_ERROR`
    TooManyValuesError = 1657, "HY000";
    /// `ER_ROW_SINGLE_PARTITION_FIELD_ERROR`
    RowSinglePartitionFieldError = 1658, "HY000";
    /// `ER_FIELD_TYPE_NOT_ALLOWED_AS_PARTITION_FIELD`
    FieldTypeNotAllowedAsPartitionField = 1659, "HY000";
    /// `ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT`
    WarnDeprecatedSyntaxNoReplacement = 1681, "HY000";
    /// `ER_DATA_OUT_OF_RANGE`
    DataOutOfRange = 1690, "22003";
    /// `ER_VALUES_IS_NOT_INT_TYPE_ERROR`
    ValuesIsNotIntTypeError = 1697, "HY000";
    /// `ER_TRUNCATE_ILLEGAL_FK`
    TruncateIllegalFk = 1701, "42000";
    /// `ER_INDEX_CORRUPT`
    IndexCorrupt = 1712, "HY000";
    /// `ER_PARTITION_EXCHANGE_DIFFERENT_OPTION`
    PartitionExchangeDifferentOption = 1731, "HY000";
    /// `ER_PARTITION_EXCHANGE_PART_TABLE`
    PartitionExchangePartTable = 1732, "HY000";
    /// `ER_PARTITION_EXCHANGE_TEMP_TABLE`
    PartitionExchangeTempTable = 1733, "HY000";
    /// `ER_UNKNOWN_PARTITION`
    UnknownPartition = 1735, "HY000";
    /// `ER_TABLES_DIFFERENT_METADATA`
    TablesDifferentMetadata = 1736, "HY000";
    /// `ER_ROW_DOES_NOT_MATCH_PARTITION`
    RowDoesNotMatchPartition = 1737, "HY000";
    /// `ER_PARTITION_CLAUSE_ON_NONPARTITIONED`
    PartitionClauseOnNonpartitioned = 1747, "HY000";
    /// `ER_ROW_DOES_NOT_MATCH_GIVEN_PARTITION_SET`
    RowDoesNotMatchGivenPartitionSet = 1748, "HY000";
    /// `ER_UNKNOWN_ALTER_ALGORITHM`
    UnknownAlterAlgorithm = 1800, "HY000";
    /// `ER_UNKNOWN_ALTER_LOCK`
    UnknownAlterLock = 1801, "HY000";
    /// `ER_TABLE_SCHEMA_MISMATCH`
    TableSchemaMismatch = 1808, "HY000";
    /// `ER_TABLESPACE_MISSING`
    TablespaceMissing = 1812, "HY000";
    /// `ER_TABLESPACE_DISCARDED`
    TablespaceDiscarded = 1814, "HY000";
    /// `ER_DUP_CONSTRAINT_NAME`
    DupConstraintName = 1826, "HY000";
    /// `ER_FK_COLUMN_CANNOT_CHANGE`
    FkColumnCannotChange = 1832, "HY000";
    /// `ER_FK_COLUMN_CANNOT_CHANGE_CHILD`
    FkColumnCannotChangeChild = 1833, "HY000";
    /// `ER_ALTER_OPERATION_NOT_SUPPORTED`
    AlterOperationNotSupported = 1845, "0A000";
    /// `ER_ALTER_OPERATION_NOT_SUPPORTED_REASON`
    AlterOperationNotSupportedReason = 1846, "0A000";
    /// `ER_TABLE_CORRUPT`
    TableCorrupt = 1877, "HY000";
    /// `ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED`: a function, variable or subquery a generated
    /// column's expression may not use.
    GeneratedColumnFunctionIsNotAllowed = 1901, "HY000";
    /// `ER_PRIMARY_KEY_BASED_ON_GENERATED_COLUMN`
    PrimaryKeyBasedOnGeneratedColumn = 1903, "HY000";
    /// `ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN`: a value other than DEFAULT for a
    /// generated column (an error in strict mode, a warning otherwise).
    WarningNonDefaultValueForGeneratedColumn = 1906, "HY000";
    /// `ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN`: ALTER TABLE turning a VIRTUAL column into
    /// another kind, or another kind into a VIRTUAL one.
    UnsupportedActionOnGeneratedColumn = 1907, "HY000";
    /// `ER_BAD_OPTION_VALUE`: an engine-defined option (`CLUSTERING=...`) with a value it does
    /// not take.
    BadOptionValue = 1912, "HY000";
    /// `ER_DATA_OVERFLOW`
    DataOverflow = 1916, "22003";
    /// `ER_CONNECTION_KILLED`
    ConnectionKilled = 1927, "70100";
    /// `ER_QUERY_RESULT_INCOMPLETE` (a warning: a recursive CTE stopped at max_recursive_iterations)
    QueryResultIncomplete = 1931, "HY000";
    /// `ER_IT_IS_A_VIEW`
    ItIsAView = 1965, "42S02";
    /// `ER_SUBQUERIES_NOT_SUPPORTED`: PURGE ... BEFORE with a subquery.
    SubqueriesNotSupported = 1970, "42000";
    /// `ER_USER_CREATE_EXISTS`: the note of CREATE USER IF NOT EXISTS for an existing account.
    UserCreateExists = 1973, "HY000";
    /// `ER_USER_DROP_EXISTS`: the note of DROP USER IF EXISTS for a missing account.
    UserDropExists = 1974, "HY000";
    /// MySQL's "Too long enumeration/set value" (MariaDB has no such error). Betula sends it
    /// as 3504, which MySQL 8 gives `ER_TOO_BIG_ENUM`; MySQL's own number for this text is 3505.
    TooLongSetEnumValue = 3504, "HY000";
    /// MySQL 8's `ER_CLIENT_LOCAL_FILES_DISABLED` (MariaDB has no such error).
    ClientLocalFilesDisabled = 3948, "42000";
    /// `ER_WITH_COL_WRONG_LIST`
    WithColWrongList = 4002, "HY000";
    /// `ER_TOO_MANY_DEFINITIONS_IN_WITH_CLAUSE`
    TooManyDefinitionsInWithClause = 4003, "HY000";
    /// `ER_DUP_QUERY_NAME`
    DupQueryName = 4004, "HY000";
    /// `ER_RECURSIVE_WITHOUT_ANCHORS`
    RecursiveWithoutAnchors = 4005, "HY000";
    /// `ER_UNACCEPTABLE_MUTUAL_RECURSION`
    UnacceptableMutualRecursion = 4006, "HY000";
    /// `ER_NOT_STANDARD_COMPLIANT_RECURSIVE`
    NotStandardCompliantRecursive = 4008, "HY000";
    /// `ER_WRONG_WINDOW_SPEC_NAME`
    WrongWindowSpecName = 4009, "HY000";
    /// `ER_DUP_WINDOW_NAME`
    DupWindowName = 4010, "HY000";
    /// `ER_PARTITION_LIST_IN_REFERENCING_WINDOW_SPEC`
    PartitionListInReferencingWindowSpec = 4011, "HY000";
    /// `ER_ORDER_LIST_IN_REFERENCING_WINDOW_SPEC`
    OrderListInReferencingWindowSpec = 4012, "HY000";
    /// `ER_WINDOW_FRAME_IN_REFERENCED_WINDOW_SPEC`
    WindowFrameInReferencedWindowSpec = 4013, "HY000";
    /// `ER_BAD_COMBINATION_OF_WINDOW_FRAME_BOUND_SPECS`
    BadCombinationOfWindowFrameBoundSpecs = 4014, "HY000";
    /// `ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION`
    WrongPlacementOfWindowFunction = 4015, "HY000";
    /// `ER_WINDOW_FUNCTION_IN_WINDOW_SPEC`
    WindowFunctionInWindowSpec = 4016, "HY000";
    /// `ER_NOT_ALLOWED_WINDOW_FRAME`
    NotAllowedWindowFrame = 4017, "HY000";
    /// `ER_NO_ORDER_LIST_IN_WINDOW_SPEC`
    NoOrderListInWindowSpec = 4018, "HY000";
    /// `ER_RANGE_FRAME_NEEDS_SIMPLE_ORDERBY`
    RangeFrameNeedsSimpleOrderby = 4019, "HY000";
    /// `ER_WRONG_TYPE_FOR_ROWS_FRAME`
    WrongTypeForRowsFrame = 4020, "HY000";
    /// `ER_WRONG_TYPE_FOR_RANGE_FRAME`
    WrongTypeForRangeFrame = 4021, "HY000";
    /// `ER_FRAME_EXCLUSION_NOT_SUPPORTED`
    FrameExclusionNotSupported = 4022, "HY000";
    /// `ER_INVALID_NTILE_ARGUMENT`
    InvalidNtileArgument = 4024, "HY000";
    /// `ER_CONSTRAINT_FAILED`
    ConstraintFailed = 4025, "23000";
    /// `ER_EXPRESSION_REFERS_TO_UNINIT_FIELD`: a generated column's expression reads itself or a
    /// generated column after it.
    ExpressionRefersToUninitField = 4029, "01000";
    /// `ER_JSON_NOT_JSON_CHR`
    JsonNotJsonChr = 4036, "HY000";
    /// `ER_JSON_EOS`
    JsonEos = 4037, "HY000";
    /// `ER_JSON_SYNTAX`
    JsonSyntax = 4038, "HY000";
    /// `ER_JSON_DEPTH`
    JsonDepth = 4040, "HY000";
    /// `ER_JSON_PATH_EOS`
    JsonPathEos = 4041, "HY000";
    /// `ER_JSON_PATH_SYNTAX`
    JsonPathSyntax = 4042, "HY000";
    /// `ER_JSON_PATH_DEPTH`
    JsonPathDepth = 4043, "HY000";
    /// `ER_JSON_PATH_NO_WILDCARD`
    JsonPathNoWildcard = 4044, "HY000";
    /// `ER_JSON_ONE_OR_ALL`
    JsonOneOrAll = 4046, "HY000";
    /// `ER_JSON_PATH_EMPTY`
    JsonPathEmpty = 4051, "HY000";
    /// `ER_SUM_FUNC_WITH_WINDOW_FUNC_AS_ARG`
    SumFuncWithWindowFuncAsArg = 4074, "HY000";
    /// `ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION` (a row compared with a scalar, ...)
    IllegalParameterDataTypes2ForOperation = 4078, "HY000";
    /// `ER_UNKNOWN_VIEW`
    UnknownView = 4092, "42S02";
    /// `ER_WRONG_TYPE_FOR_PERCENTILE_FUNC`: PERCENTILE_CONT's key is not numeric or temporal.
    WrongTypeForPercentileFunc = 4101, "HY000";
    /// `ER_ARGUMENT_NOT_CONSTANT`: a percentile that differs within a partition.
    ArgumentNotConstant = 4102, "HY000";
    /// `ER_ARGUMENT_OUT_OF_RANGE`: a percentile outside [0,1].
    ArgumentOutOfRange = 4103, "HY000";
    /// `ER_WRONG_TYPE_OF_ARGUMENT`: a percentile that is not of a numeric type.
    WrongTypeOfArgument = 4104, "HY000";
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;
    use std::collections::HashSet;

    #[test]
    fn numbers_are_unique_and_round_trip() {
        let mut seen = HashSet::new();
        for &c in ErrorCode::ALL {
            assert!(
                seen.insert(c.number()),
                "{c:?}: number {} twice",
                c.number()
            );
            assert_eq!(ErrorCode::from_number(c.number()), Some(c));
        }
        assert_eq!(ErrorCode::from_number(0), None);
        assert_eq!(ErrorCode::from_number(9999), None);
    }

    #[test]
    fn sqlstates_are_five_characters() {
        for &c in ErrorCode::ALL {
            let s = c.sqlstate();
            assert!(
                s.len() == 5
                    && s.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
                "{c:?}: SQLSTATE {s:?}"
            );
        }
    }

    #[test]
    fn names_follow_mariadb() {
        assert_eq!(ErrorCode::DupEntry.number(), 1062);
        assert_eq!(ErrorCode::NoSuchTable.number(), 1146);
        assert_eq!(ErrorCode::LockWaitTimeout.number(), 1205);
        assert_eq!(ErrorCode::NotSupportedYet.number(), 1235);
        assert_eq!(ErrorCode::LockDeadlock.sqlstate(), "40001");
    }
}
