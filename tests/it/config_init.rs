#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `config init` and `load` against a real directory.

use light_agent::config::{
    ConfigError, Env, Flags, Paths, Resolution, init, load, servers_to_probe, starter_file,
};

fn home() -> (tempfile::TempDir, Paths) {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::resolve(Some(&dir.path().join("home"))).unwrap();
    (dir, paths)
}

#[test]
fn init_writes_the_starter_file_and_refuses_a_second_time() {
    let (_dir, paths) = home();
    let written = init(&paths).unwrap();
    assert_eq!(written, paths.config_file);
    assert_eq!(std::fs::read_to_string(&written).unwrap(), starter_file());

    let edited = "model = \"mine\"\n";
    std::fs::write(&written, edited).unwrap();
    let err = init(&paths).unwrap_err();
    assert!(
        matches!(&err, ConfigError::AlreadyExists(path) if path == &paths.config_file),
        "{err:?}"
    );
    assert!(err.to_string().contains("not overwriting"), "{err}");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), edited);
}

fn no_probe(_: &str) -> Option<String> {
    None
}

#[test]
fn servers_to_probe_names_the_local_server_only_when_nothing_else_settles_it() {
    let (_dir, paths) = home();
    let keyless = servers_to_probe(&paths, &Env::new(), &Flags::default()).unwrap();
    assert_eq!(keyless, ["http://127.0.0.1:11434/v1"]);
    let keyed = Env::new().with("OPENAI_API_KEY", "sk-test");
    assert!(
        servers_to_probe(&paths, &keyed, &Flags::default())
            .unwrap()
            .is_empty()
    );
    let found = load(&paths, &Env::new(), &Flags::default(), &|url| {
        (url == keyless[0]).then(|| "qwen3:8b".to_owned())
    })
    .unwrap();
    assert_eq!(found.settings().model, "qwen3:8b");
}

#[test]
fn the_starter_file_loads_cleanly() {
    let (_dir, paths) = home();
    init(&paths).unwrap();
    let env = Env::new().with("OPENAI_API_KEY", "sk-test");
    let resolution = load(&paths, &env, &Flags::default(), &no_probe).unwrap();
    let Resolution::Ready(settings) = resolution else {
        panic!("{resolution:?}")
    };
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
    assert_eq!(settings.model, "gpt-4.1");
}

#[test]
fn load_without_a_file_uses_defaults() {
    let (_dir, paths) = home();
    let env = Env::new().with("DEEPSEEK_API_KEY", "sk-test");
    let resolution = load(&paths, &env, &Flags::default(), &no_probe).unwrap();
    assert_eq!(resolution.settings().provider.name, "deepseek");
    assert!(!paths.config_file.exists(), "load must not create the file");
}

#[test]
fn load_reports_a_malformed_file_by_its_path() {
    let (_dir, paths) = home();
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(&paths.config_file, "model = \n").unwrap();
    let err = load(
        &paths,
        &Env::new().with("OPENAI_API_KEY", "k"),
        &Flags::default(),
        &no_probe,
    )
    .unwrap_err();
    let ConfigError::Malformed { file, line, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((file, *line), (&paths.config_file, 1));
}
