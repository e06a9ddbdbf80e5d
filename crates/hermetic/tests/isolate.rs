//! `#[hermetic::isolate]` end to end: calls that leave the unit answer with the test's fakes,
//! others run for real; methods are isolated by their receiver's type; restrictions hold.

mod db {
    #[derive(Debug, Clone, PartialEq)]
    pub enum DbError {
        Unreachable,
    }

    /// Stands for a query that connects to a server: never reached in these tests' fakes.
    pub fn run_query(_sql: &str, _user: &str) -> Result<i64, DbError> {
        Err(DbError::Unreachable)
    }

    pub fn generic<T: Default>(_n: u8) -> T {
        T::default()
    }

    pub struct Database {
        pub url: String,
    }

    impl Database {
        pub fn connect(url: &str) -> Database {
            Database { url: url.into() }
        }
        pub fn balance(&self, _user: &str) -> Result<i64, DbError> {
            Err(DbError::Unreachable)
        }
        pub fn url(&self) -> &str {
            &self.url
        }
        pub fn close(self) -> u8 {
            1
        }
    }
}

mod bank {
    use super::db;

    #[derive(Debug, PartialEq)]
    pub enum Transfer {
        Invalid,
        NotEnough(i64),
        Done(i64),
        Failed,
    }

    #[hermetic::isolate]
    pub fn transfer(user: &str, amount: i64) -> Transfer {
        if amount <= 0 {
            return Transfer::Invalid;
        }
        let Ok(balance) = db::run_query("GetBalance", user) else {
            return Transfer::Failed;
        };
        if balance < amount {
            return Transfer::NotEnough(balance);
        }
        Transfer::Done(balance - amount)
    }

    #[hermetic::isolate(except(Database::url))]
    pub fn balance_at(url: &str, user: &str) -> (String, Option<i64>) {
        let database = db::Database::connect(url);
        let names = [user.to_string()];
        // A method of a type the unit does not call out to runs as written.
        let first = names.first().cloned().unwrap_or_default();
        let balance = database.balance(&first).ok();
        (database.url().to_string(), balance)
    }

    pub struct Teller {
        pub database: db::Database,
    }

    #[hermetic::isolate(only(db::Database::balance), returns(db::Database::balance, Ok(0..) | Err(_)))]
    impl Teller {
        pub fn check(&self, user: &str) -> i64 {
            self.database.balance(user).unwrap_or(-1) + self.bonus()
        }
        fn bonus(&self) -> i64 {
            0
        }
    }

    #[hermetic::isolate]
    pub fn typed() -> u64 {
        db::generic(1)
    }

    #[hermetic::isolate]
    pub fn closes(database: db::Database) -> u8 {
        let d = db::Database::connect("x");
        database.close() + d.close()
    }
}

use bank::Transfer;
use hermetic::Fakes;

#[test]
fn nothing_set_up_runs_the_real_callees() {
    assert_eq!(bank::transfer("ada", 0), Transfer::Invalid);
    assert_eq!(bank::transfer("ada", 5), Transfer::Failed);
}

#[test]
fn every_outcome_is_reached_through_fakes() {
    let fakes = Fakes::new().returns(db::run_query, [Ok(3), Ok(10)]).enter();
    assert_eq!(bank::transfer("ada", 5), Transfer::NotEnough(3));
    assert_eq!(bank::transfer("ada", 5), Transfer::Done(5));
    assert_eq!(fakes.left(db::run_query), 0);
}

#[test]
#[should_panic(expected = "was called more often than this test set up (1 value)")]
fn a_call_more_than_set_up_fails_with_the_regenerate_message() {
    let _fakes = Fakes::new().returns(db::run_query, [Ok(3)]).enter();
    bank::transfer("ada", 5);
    bank::transfer("ada", 5);
}

#[test]
fn constructors_and_methods_of_outside_types_are_isolated_by_receiver_type() {
    let _fakes = Fakes::new()
        .returns(
            db::Database::connect,
            [db::Database {
                url: "fake:1".into(),
            }],
        )
        .returns(db::Database::balance, [Ok(42)])
        .enter();
    assert_eq!(
        bank::balance_at("real:5432", "ada"),
        ("fake:1".to_string(), Some(42))
    );
}

#[test]
fn only_and_restrictions_hold_in_impl_blocks() {
    let teller = bank::Teller {
        database: db::Database::connect("x"),
    };
    assert_eq!(teller.check("ada"), -1);
    let _fakes = Fakes::new().returns(db::Database::balance, [Ok(7)]).enter();
    assert_eq!(teller.check("ada"), 7);
}

#[test]
#[should_panic(
    expected = "is one the isolated code rules out (`returns(db::Database::balance, Ok(0..) | Err(_))`)"
)]
fn a_value_the_unit_rules_out_fails_the_test() {
    let teller = bank::Teller {
        database: db::Database::connect("x"),
    };
    let _fakes = Fakes::new()
        .returns(db::Database::balance, [Ok(-7)])
        .enter();
    teller.check("ada");
}

#[test]
fn generic_callees_are_set_up_with_their_type_arguments() {
    assert_eq!(bank::typed(), 0);
    let _fakes = Fakes::new().returns(db::generic::<u64>, [9]).enter();
    assert_eq!(bank::typed(), 9);
}

#[test]
fn receivers_by_value_are_isolated_too() {
    let _fakes = Fakes::new().returns(db::Database::close, [5, 6]).enter();
    assert_eq!(bank::closes(db::Database::connect("y")), 11);
}
