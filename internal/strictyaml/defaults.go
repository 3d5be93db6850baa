package strictyaml

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// setDefaults sets every field of the struct v that has a `default:"..."`
// tag to that value, read as YAML, and recurses into struct fields. A bad
// tag is a programming error, reported rather than panicking.
func setDefaults(v reflect.Value) error {
	if v.Kind() != reflect.Struct {
		return nil
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		def, ok := f.Tag.Lookup("default")
		if !ok {
			if err := setDefaults(v.Field(i)); err != nil {
				return err
			}
			continue
		}
		if err := setDefault(v.Field(i), def); err != nil {
			return fmt.Errorf("internal error: default of %s.%s: %v", t.Name(), f.Name, err)
		}
	}
	return nil
}

func setDefault(v reflect.Value, def string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(def), &doc); err != nil {
		return err
	}
	if len(doc.Content) != 1 {
		return fmt.Errorf("%q is not one value", def)
	}
	return decodeNode(doc.Content[0], v, "")
}
