import unittest

from textutil import slugify, title_case, truncate


class HiddenSlugifyTest(unittest.TestCase):
    def test_example(self):
        self.assertEqual(slugify("  Hello, World!  "), "hello-world")

    def test_runs_and_digits(self):
        self.assertEqual(slugify("Rust 2024 -- edition"), "rust-2024-edition")
        self.assertEqual(slugify("a__b..c"), "a-b-c")
        self.assertEqual(slugify("already-a-slug"), "already-a-slug")
        self.assertEqual(slugify("!!!"), "")

    def test_rest_unchanged(self):
        self.assertEqual(title_case("hello big world"), "Hello Big World")
        self.assertEqual(truncate("abcdefgh", 6), "abc...")
        self.assertEqual(truncate("abc", 6), "abc")


if __name__ == "__main__":
    unittest.main()
