"""Filter rules: each a small class that keeps a row or names the reason it is dropped."""
