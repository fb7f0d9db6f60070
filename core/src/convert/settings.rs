//! A provider's own settings, as its JS class sends them: one JSON object
//! text beside the options every provider takes (`ConverterOptions`). Each
//! provider reads the keys it defines (`<provider>/mod.rs`) and no other;
//! nothing shared names them.

use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::{self, Value};

/// The settings object, parsed (absent: every key absent).
pub struct Settings<'a> {
    object: Option<Value<'a>>,
}

impl<'a> Settings<'a> {
    /// The settings in `text`, a JSON object (`None`: none sent).
    pub fn parse(text: Option<&'a str>) -> Result<Settings<'a>, Error> {
        let object = match text {
            None => None,
            Some(text) => match json::parse(text)? {
                v @ Value::Obj(_) => Some(v),
                _ => return Err(invalid("the converter settings must be a JSON object")),
            },
        };
        Ok(Settings { object })
    }

    /// The value at `path` (nested keys); `None` when absent or null.
    fn at(&self, path: &[&str]) -> Option<&Value<'a>> {
        let mut v = self.object.as_ref()?;
        for key in path {
            v = v.get(key)?;
        }
        (!v.is_null()).then_some(v)
    }

    /// A boolean at `path`, `false` when absent.
    pub fn flag(&self, path: &[&str]) -> Result<bool, Error> {
        match self.at(path) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(invalid(&format!(
                "the converter setting {} must be a boolean",
                path.join(".")
            ))),
        }
    }

    /// A string at `path`, `None` when absent.
    pub fn text(&self, path: &[&str]) -> Result<Option<String>, Error> {
        match self.at(path) {
            None => Ok(None),
            Some(v @ Value::Str(_)) => Ok(v.as_str().map(|s| s.into_owned())),
            Some(_) => Err(invalid(&format!(
                "the converter setting {} must be a string",
                path.join(".")
            ))),
        }
    }
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorCode::InvalidArgument, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_by_path_with_their_types_checked() {
        let s = Settings::parse(Some(r#"{"a":true,"n":{"b":true},"m":"x","z":null}"#)).unwrap();
        assert!(s.flag(&["a"]).unwrap());
        assert!(s.flag(&["n", "b"]).unwrap());
        assert!(!s.flag(&["absent"]).unwrap());
        assert!(!s.flag(&["z"]).unwrap());
        assert_eq!(s.text(&["m"]).unwrap().as_deref(), Some("x"));
        assert_eq!(s.text(&["absent"]).unwrap(), None);
        assert_eq!(s.flag(&["m"]).unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(s.text(&["a"]).unwrap_err().code, ErrorCode::InvalidArgument);
        assert!(!Settings::parse(None).unwrap().flag(&["a"]).unwrap());
        let e = Settings::parse(Some("[]")).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
    }
}
