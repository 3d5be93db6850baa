package provision

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// dynamoTimeout bounds one call to dynalite.
const dynamoTimeout = 5 * time.Second

// Table is a DynamoDB table with a string partition key.
type Table struct {
	Name string
	Key  string // the partition key attribute, a string
}

// CreateTable creates table t on demand capacity (PAY_PER_REQUEST). It is
// ACTIVE once the call returns (dynalite is started with no CREATING
// state). dynalite implements no UpdateTimeToLive (its DescribeTimeToLive
// always answers DISABLED): no TTL attribute can be set, and no record
// is ever deleted by expiry.
func (d *Dynalite) CreateTable(ctx context.Context, t Table) error {
	req := map[string]any{
		"TableName":            t.Name,
		"AttributeDefinitions": []map[string]string{{"AttributeName": t.Key, "AttributeType": "S"}},
		"KeySchema":            []map[string]string{{"AttributeName": t.Key, "KeyType": "HASH"}},
		"BillingMode":          "PAY_PER_REQUEST",
	}
	if err := DynamoDBCall(ctx, d.Endpoint, "CreateTable", req, nil); err != nil {
		return fmt.Errorf("dynalite: create table %s: %w", t.Name, err)
	}
	return nil
}

// DynamoDBCall makes one call of DynamoDB's JSON API at endpoint
// (operation op with body in), decoding the answer into out (nil: read and
// dropped). It is for dynalite, which checks that a request is signed but
// not its signature: the Authorization header only has the form of one.
func DynamoDBCall(ctx context.Context, endpoint, op string, in, out any) error {
	ctx, cancel := context.WithTimeout(ctx, dynamoTimeout)
	defer cancel()
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("X-Amz-Date", now.Format("20060102T150405Z"))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=idemchaos/"+now.Format("20060102")+
		"/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b, &e)
		return fmt.Errorf("%s: %s %s %s", op, resp.Status, e.Type, e.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// packageVersion is the "version" of an npm package.json ("" if none).
func packageVersion(b []byte) string {
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}
